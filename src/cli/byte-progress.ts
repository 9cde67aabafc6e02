// A one-line progress bar by bytes read (stderr, TTY only), for `usage` on multi-gigabyte exports.
// Hand-written like ./progress.ts: cli-progress (3.12, last release 2023) would add string-width and its
// start-up cost to every kvgate run for one line of output; this redraws at most 10 times a second.
export interface ByteProgress {
  add(bytes: number): void;
  label(text: string): void;
  done(): void;
}

const WIDTH = 30;

function mib(n: number): string {
  return `${(n / 1024 / 1024).toFixed(0)} MiB`;
}

export function byteProgress(stream: NodeJS.WriteStream, total: number, initial: string, minTotal = 64 * 1024 * 1024): ByteProgress {
  if (!stream.isTTY || total < minTotal) return { add() {}, label() {}, done() {} };
  let done = 0;
  let last = 0;
  let text = initial;
  const started = Date.now();
  const draw = (): void => {
    const share = Math.min(1, done / total);
    const filled = Math.round(share * WIDTH);
    const secs = (Date.now() - started) / 1000;
    const eta = share > 0.01 ? ` ~${Math.max(0, Math.round(secs / share - secs))} s left` : "";
    stream.write(
      `\r\u001b[2K${text} [${"#".repeat(filled)}${"-".repeat(WIDTH - filled)}] ${Math.floor(share * 100)}% ${mib(done)}/${mib(total)}${eta}`,
    );
  };
  return {
    add(bytes) {
      done += bytes;
      const now = Date.now();
      if (now - last < 100 && done < total) return;
      last = now;
      draw();
    },
    label(t) {
      text = t;
      done = 0;
      last = 0;
    },
    done() {
      stream.write("\r\u001b[2K");
    },
  };
}
