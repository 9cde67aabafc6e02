// Big diffs are not held in memory: the hunk lines of a file whose patch grows past SPILL_BYTES are
// written, as git streams them, to a file in a per-process temp folder, and read back one line at a
// time when the secret scan walks them. Memory stays a constant plus the longest line, whatever the
// size of the file (a 50 MB dump staged by mistake must be scanned, not skipped: contract section 9).
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddedLine } from "./types.js";

/** A file's patch larger than this is spilled to disk instead of kept. */
export const SPILL_BYTES = 4 * 1024 * 1024;

/** The line a spilled section leaves in the in-memory patch; git never prints a line starting with \x01. */
export const SPILL_MARK = "\x01kvgate-spill ";

const CHUNK = 1024 * 1024;

let folder: string | null = null;
let count = 0;

function spillFolder(): string {
  if (folder === null) {
    const made = mkdtempSync(join(tmpdir(), "kvgate-spill-"));
    folder = made;
    process.once("exit", () => rmSync(made, { recursive: true, force: true }));
  }
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

/** The lines of a file, read in chunks: only the line being cut and one chunk are in memory. */
function* rawLines(path: string): Generator<Buffer> {
  const fd = openSync(path, "r");
  try {
    const buf = Buffer.alloc(CHUNK);
    let partial: Buffer[] = [];
    for (;;) {
      const n = readSync(fd, buf, 0, CHUNK, null);
      if (n === 0) break;
      let start = 0;
      for (;;) {
        const eol = buf.indexOf(0x0a, start);
        if (eol < 0 || eol >= n) break;
        const piece = buf.subarray(start, eol);
        yield partial.length > 0 ? Buffer.concat([...partial, piece]) : piece;
        partial = [];
        start = eol + 1;
      }
      if (start < n) partial.push(Buffer.from(buf.subarray(start, n)));
    }
    if (partial.length > 0) yield Buffer.concat(partial);
  } finally {
    closeSync(fd);
  }
}

/**
 * The added lines of a spilled section, numbered in the after version: `@@ -a,b +c,d @@` sets the
 * number, `+` lines are added, ` ` lines (inter-hunk context) advance it. CR dropped as splitLines does.
 */
export function* spilledAddedLines(path: string): Generator<AddedLine> {
  let next = 0;
  for (const raw of rawLines(path)) {
    const first = raw[0];
    if (first === 0x2b) {
      const end = raw.length > 1 && raw[raw.length - 1] === 0x0d ? raw.length - 1 : raw.length;
      yield { line: next++, text: raw.toString("utf8", 1, end) };
    } else if (first === 0x20) next++;
    else if (first === 0x40 && raw[1] === 0x40) {
      const m = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(raw.toString("latin1", 0, Math.min(raw.length, 200)));
      if (m) next = Number(m[1]);
    }
  }
}
