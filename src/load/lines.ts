// Reading a file one line at a time in constant memory: the spend-log exports of `usage` and the metrics
// of `observe` (a year of per-minute nvidia-smi samples is 10 million lines). Each line is decoded on
// its own from one read buffer (split on the newline byte, which UTF-8 never uses inside a character):
// V8 keeps strings above ~128 KiB in large-object space, which only a full collection frees, so no
// string of megabytes is ever made. Reads are synchronous (an await per read left the thread idle), but
// every YIELD_BYTES (16 MiB) the loop yields to the event loop, so that SIGINT and SIGTERM handlers run (the
// spill folders of ./spill.ts are removed there) and a timeout's kill is not held off for a minute.
import { readSync } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { GateError } from "../errors.js";

const CHUNK = 4 * 1024 * 1024;
const YIELD_BYTES = 16 * 1024 * 1024;

export function cannotRead(file: string, e: unknown, hint = "name a readable file"): GateError {
  const code = (e as NodeJS.ErrnoException).code;
  const why =
    code === "ENOENT"
      ? "no such file"
      : code === "EACCES"
        ? "permission denied"
        : code === "EISDIR"
          ? "a folder, not a file"
          : ((e as Error).message ?? String(e));
  return new GateError(`cannot read ${file}: ${why}`, { hint });
}

/** Opens a file for reading; a folder or an unreadable path is a GateError naming the file. */
export async function openFile(file: string, hint?: string): Promise<FileHandle> {
  try {
    const fh = await open(file, "r");
    const st = await fh.stat();
    if (st.isDirectory()) {
      await fh.close();
      throw Object.assign(new Error("is a directory"), { code: "EISDIR" });
    }
    return fh;
  } catch (e) {
    throw cannotRead(file, e, hint);
  }
}

/** The first `bytes` of a file as text (a leading BOM dropped): what a reader is picked by. */
export async function headOf(file: string, bytes = 64 * 1024, hint?: string): Promise<string> {
  const fh = await openFile(file, hint);
  try {
    const buf = Buffer.alloc(bytes);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    return buf
      .subarray(0, bytesRead)
      .toString("utf8")
      .replace(/^\uFEFF/, "");
  } catch (e) {
    throw cannotRead(file, e, hint);
  } finally {
    await fh.close();
  }
}

/** A read buffer that is refilled after the `have` bytes it keeps, and doubled when they fill it (one
 *  line or record longer than the buffer: a row with its messages stored). */
export class ReadBuffer {
  buf = Buffer.allocUnsafe(CHUNK);
  have = 0;

  constructor(
    private readonly fd: number,
    private readonly file: string,
    private readonly hint?: string,
  ) {}

  /** Reads more; the number of bytes read, 0 at the end of the file. */
  more(): number {
    if (this.have === this.buf.length) {
      const grown = Buffer.allocUnsafe(this.buf.length * 2);
      this.buf.copy(grown, 0, 0, this.have);
      this.buf = grown;
    }
    let n: number;
    try {
      n = readSync(this.fd, this.buf, this.have, this.buf.length - this.have, null);
    } catch (e) {
      throw cannotRead(this.file, e, this.hint);
    }
    this.have += n;
    return n;
  }

  /** Drops the bytes before `from`. */
  keepFrom(from: number): void {
    this.buf.copy(this.buf, 0, from, this.have);
    this.have -= from;
  }
}

export interface LineOptions {
  /** Told the size of each read, for a progress bar. */
  onBytes?: (n: number) => void;
  hint?: string;
}

/**
 * Calls `onLine` with each line of the file (without its CR LF or LF, a leading BOM dropped) and its
 * 1-based number. `onLine` may throw to stop: the file is closed.
 */
export async function eachLine(file: string, onLine: (text: string, line: number) => void, o: LineOptions = {}): Promise<void> {
  const fh = await openFile(file, o.hint);
  const rb = new ReadBuffer(fh.fd, file, o.hint);
  let line = 0;
  let first = true;
  let sinceYield = 0;
  try {
    for (;;) {
      const n = rb.more();
      if (n === 0) break;
      o.onBytes?.(n);
      sinceYield += n;
      const buf = rb.buf;
      const end = rb.have;
      let from = 0;
      if (first && end >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) from = 3;
      first = false;
      const view = buf.subarray(0, end);
      let nl: number;
      while ((nl = view.indexOf(10, from)) !== -1) {
        line++;
        const stop = nl > from && buf[nl - 1] === 13 ? nl - 1 : nl;
        onLine(buf.toString("utf8", from, stop), line);
        from = nl + 1;
      }
      rb.keepFrom(from);
      if (sinceYield >= YIELD_BYTES) {
        sinceYield = 0;
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    }
    if (rb.have > 0) {
      line++;
      const buf = rb.buf;
      const stop = buf[rb.have - 1] === 13 ? rb.have - 1 : rb.have;
      onLine(buf.toString("utf8", 0, stop), line);
    }
  } finally {
    await fh.close();
  }
}
