// Big diffs are not held in memory: the hunk lines of a file whose patch grows past SPILL_BYTES are
// written, as git streams them, to a file in a per-process temp folder, and a big added file's blob is
// written there by `git cat-file` itself (./bigfiles.ts); both are read back a chunk at a time when
// the secret scan walks them, only the lines its keyword sieve keeps decoded. Memory stays a constant
// plus the longest line, whatever the size of the file (a 50 MB dump staged by mistake must be
// scanned, not skipped: docs/secrets.md).
import { closeSync, openSync, readSync, writeSync } from "node:fs";
import { join } from "node:path";
import { makeTempFolder } from "./temp.js";
import type { AddedLine, LineSieve } from "./types.js";

/** A file's patch larger than this is spilled to disk instead of kept. */
export const SPILL_BYTES = 4 * 1024 * 1024;

/** The line a spilled section leaves in the in-memory patch; git never prints a line starting with \x01. */
export const SPILL_MARK = "\x01kvgate-spill ";

const CHUNK = 1024 * 1024;

let folder: string | null = null;
let count = 0;

/** The process's spill folder, made on the first spill (./temp.ts removes it on exit or a signal, and what killed runs left). */
function spillFolder(): string {
  folder ??= makeTempFolder("spill", { cleanStale: true }).path;
  return folder;
}

/** One spilled section being written, in 1 MiB writes (a write per line would cost a syscall each). */
export class SpillWriter {
  readonly path: string;
  private fd: number;
  /** Lines gathered for the next write: copied, so git's chunks they came from are not kept alive. */
  private pending = Buffer.allocUnsafe(CHUNK);
  private used = 0;

  constructor() {
    this.path = join(spillFolder(), `${process.pid}-${count++}.patch`);
    this.fd = openSync(this.path, "w");
  }

  write(bytes: Uint8Array): void {
    if (this.used + bytes.length > this.pending.length) this.flush();
    if (bytes.length > this.pending.length) {
      this.writeAll(bytes);
      return;
    }
    this.pending.set(bytes, this.used);
    this.used += bytes.length;
  }

  private flush(): void {
    this.writeAll(this.pending.subarray(0, this.used));
    this.used = 0;
  }

  private writeAll(bytes: Uint8Array): void {
    let off = 0;
    while (off < bytes.length) off += writeSync(this.fd, bytes, off, bytes.length - off);
  }

  close(): void {
    this.flush();
    closeSync(this.fd);
  }
}

/** What a line visitor is told of a line: 0 no sieve hit (or no sieve), else the sieve's best grade on it. */
type Visit = (b: Buffer, start: number, end: number, grade: number, keep: AddedLine[]) => void;

/**
 * Visits every line of a file, read in chunks: `visit(bytes, start, end, grade)` gets a line's bytes
 * without its newline (valid only during the call), and the lines it keeps are handed out after each
 * chunk. The sieve, when there is one, sweeps each chunk's whole lines at once. Only one chunk, the
 * line being cut and the kept lines of one chunk are in memory.
 */
function* visitLines(path: string, sieve: LineSieve | undefined, visit: Visit): Generator<AddedLine> {
  const fd = openSync(path, "r");
  // Sieve hits of the region being walked: positions and grades, in order.
  const hitAt: number[] = [];
  const hitGrade: number[] = [];
  let next = 0;
  const sweep = (b: Buffer, start: number, end: number): void => {
    hitAt.length = 0;
    hitGrade.length = 0;
    next = 0;
    sieve?.sweep(b, start, end, (at, grade) => {
      hitAt.push(at);
      hitGrade.push(grade);
    });
  };
  /** The best grade of the hits before `end` (the line ending there), consumed. */
  const gradeTo = (end: number): number => {
    let g = 0;
    while (next < hitAt.length && (hitAt[next] as number) < end) g = Math.max(g, hitGrade[next++] as number);
    return g;
  };
  try {
    const buf = Buffer.alloc(CHUNK);
    let partial: Buffer[] = [];
    for (;;) {
      const n = readSync(fd, buf, 0, CHUNK, null);
      if (n === 0) break;
      const kept: AddedLine[] = [];
      let start = 0;
      const first = buf.indexOf(0x0a);
      if (first >= 0 && first < n && partial.length > 0) {
        // The line cut by the last chunk: joined, then swept on its own.
        const whole = Buffer.concat([...partial, buf.subarray(0, first)]);
        partial = [];
        sweep(whole, 0, whole.length);
        visit(whole, 0, whole.length, gradeTo(whole.length + 1), kept);
        start = first + 1;
      }
      const last = buf.lastIndexOf(0x0a, n - 1);
      if (last >= start) {
        sweep(buf, start, last);
        for (;;) {
          const eol = buf.indexOf(0x0a, start);
          if (eol < 0 || eol > last) break;
          visit(buf, start, eol, gradeTo(eol), kept);
          start = eol + 1;
        }
      }
      if (start < n) partial.push(Buffer.from(buf.subarray(start, n)));
      yield* kept;
    }
    if (partial.length > 0) {
      const kept: AddedLine[] = [];
      const whole = Buffer.concat(partial);
      sweep(whole, 0, whole.length);
      visit(whole, 0, whole.length, gradeTo(whole.length + 1), kept);
      yield* kept;
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * How many lines after a kept one are kept too (`owed`: those still owed before it): a block's tail
 * after its header (grade 2), the line after any other hit (a value on the line after its name), and
 * what is still owed.
 */
export function keptAfter(sieve: LineSieve, grade: number, owed: number): number {
  return grade === 2 ? sieve.tail : Math.max(owed - 1, grade === 1 ? sieve.after : 0);
}

/** Numbers and decodes the lines a sieve keeps (all of them without one; CR dropped as splitLines does). */
function sieved(
  sieve: LineSieve | undefined,
): (b: Buffer, start: number, end: number, grade: number, line: number, keep: AddedLine[]) => void {
  let owed = 0;
  return (b, start, end, grade, line, keep) => {
    if (sieve) {
      if (grade === 0 && owed === 0) return;
      owed = keptAfter(sieve, grade, owed);
    }
    const stop = end > start && b[end - 1] === 0x0d ? end - 1 : end;
    keep.push({ line, text: b.toString("utf8", start, stop) });
  };
}

/**
 * The added lines of a spilled section, numbered in the after version: `@@ -a,b +c,d @@` sets the
 * number, `+` lines are added, ` ` lines (inter-hunk context) advance it. CR dropped as splitLines does.
 */
export function spilledAddedLines(path: string, sieve?: LineSieve): Generator<AddedLine> {
  let next = 0;
  const take = sieved(sieve);
  return visitLines(path, sieve, (b, start, end, grade, keep) => {
    const first = b[start];
    if (first === 0x2b) take(b, start + 1, end, grade, next++, keep);
    else if (first === 0x20) next++;
    else if (first === 0x40 && b[start + 1] === 0x40) {
      const m = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(b.toString("latin1", start, Math.min(end, start + 200)));
      if (m) next = Number(m[1]);
    }
  });
}

/** Every line of a blob streamed to disk by spillBlob, as added (a file new to the tree). */
export function blobLines(path: string, sieve?: LineSieve): Generator<AddedLine> {
  let next = 1;
  const take = sieved(sieve);
  return visitLines(path, sieve, (b, start, end, grade, keep) => take(b, start, end, grade, next++, keep));
}

/** git's test for a binary blob: a NUL byte in its first 8000 bytes. */
const BINARY_PROBE = 8000;

/**
 * Whether a stream starts as git's test for a binary file says (a NUL in its first 8000 bytes). It
 * stops reading there: the caller's stream (a git process) is ended, and a big binary file is not read.
 */
export async function startsBinary(chunks: AsyncIterable<Buffer>): Promise<boolean> {
  let seen = 0;
  for await (const chunk of chunks) {
    if (chunk.subarray(0, BINARY_PROBE - seen).includes(0)) return true;
    seen += chunk.length;
    if (seen >= BINARY_PROBE) return false;
  }
  return false;
}

/**
 * A new spill file, filled by `write` given its descriptor (git writes a blob there itself: not a byte
 * passes through this process). The file is the caller's to read; it goes with the spill folder at exit.
 */
export async function spillFile(write: (fd: number) => Promise<void>): Promise<string> {
  const path = join(spillFolder(), `${process.pid}-${count++}.blob`);
  const fd = openSync(path, "w");
  try {
    await write(fd);
  } finally {
    closeSync(fd);
  }
  return path;
}
