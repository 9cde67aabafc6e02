// A one-line progress counter on a TTY (stderr), for long audits. Nothing when not a TTY, so logs and
// pipes stay clean. Small enough that a progress-bar library would cost more startup than it saves.
export interface Progress {
  tick(): void;
  done(): void;
}

export function progress(stream: NodeJS.WriteStream, total: number, label: string): Progress {
  if (!stream.isTTY || total < 20) return { tick() {}, done() {} };
  let n = 0;
  let last = 0;
  return {
    tick() {
      n++;
      const now = Date.now();
      if (now - last < 100 && n < total) return;
      last = now;
      stream.write(`\r${label} ${n}/${total} commits (${Math.floor((n / total) * 100)}%)`);
    },
    done() {
      stream.write("\r\u001b[2K");
    },
  };
}
