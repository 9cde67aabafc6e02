// A commit's patch read for the secret scan alone (the audit of a history), as git's log output
// streams: the lines are looked at where they lie in git's chunks, never copied into a patch text.
// One sweep of the scan's prefilter (a LineSieve) over each chunk marks the lines that may matter;
// only the added lines it marks (and a private key header's tail) are decoded and kept, with their
// numbers. Everything else is counted. The same PatchFiles parsePatch makes of a whole patch, holding
// only those lines: the scan finds in them what it finds in all of them (test/git/light-patch.e2e.test.ts).
import type { AddedLine, LineSieve } from "./types.js";
import { headerPath, unquote, type PatchFile } from "./patch.js";
import { keptAfter, SPILL_BYTES } from "./spill.js";

/** A file of the light view: PatchFile's fields, `added`/`texts` holding the kept lines only. */
export interface LightFile extends PatchFile {
  texts: string[];
  /**
   * Its hunks were bigger than SPILL_BYTES: the full reading spills such a file and streams it to the
   * scan (every detector, in windows); the light one hands the scan the same kept lines the same way.
   */
  streamed: boolean;
  /** The kept lines, for a streamed file. */
  lines?: AddedLine[];
}

const DIFF = "diff --git ";

function startsWith(b: Buffer, start: number, end: number, s: string): boolean {
  if (end - start < s.length) return false;
  for (let i = 0; i < s.length; i++) if (b[start + i] !== s.charCodeAt(i)) return false;
  return true;
}

export class LightPatch {
  private readonly files = new Map<string, LightFile>();
  private current: LightFile | null = null;
  private header = "";
  private renameTo: string | null = null;
  private inHunk = false;
  private next = 0;
  private hunkBytes = 0;
  /** Added lines still kept after a block's header (the sieve's tail). */
  private owed = 0;

  constructor(private readonly sieve: LineSieve) {}

  /**
   * One line of the patch, `b[start, end)` without its newline. `grade`: the sieve's best hit on it
   * (0: none); `nul`: it holds a NUL byte; `hunkStart`: for a hunk header, its after side's first line.
   */
  line(b: Buffer, start: number, end: number, grade: number, nul: boolean, hunkStart: number | null): void {
    const first = b[start];
    // As parsePatch reads: a hunk's own lines all start with +, - or space, so this is a file's start.
    if (first === 0x64 /* d */ && startsWith(b, start, end, DIFF)) {
      this.flush();
      this.current = { path: "", added: [], binary: false, texts: [], streamed: false };
      this.header = b.toString("utf8", start + DIFF.length, end);
      this.renameTo = null;
      this.inHunk = false;
      this.hunkBytes = 0;
      this.owed = 0;
      return;
    }
    const cur = this.current;
    if (!cur) return;
    if (hunkStart !== null) {
      this.inHunk = true;
      this.next = hunkStart;
      this.hunkBytes += end - start + 1;
      return;
    }
    if (!this.inHunk) {
      const text = b.toString("utf8", start, end);
      if (text.startsWith("rename to ")) this.renameTo = unquote(text.slice("rename to ".length));
      else if (text.startsWith("copy to ")) this.renameTo = unquote(text.slice("copy to ".length));
      else if (text.startsWith("Binary files ") || text === "GIT binary patch") cur.binary = true;
      return;
    }
    this.hunkBytes += end - start + 1;
    if (first === 0x2b /* + */) {
      const n = this.next++;
      // git decides binary for the patch; a NUL in an added line means a text diff was forced on it.
      if (nul) cur.binary = true;
      if (grade === 0 && this.owed === 0) return;
      this.owed = keptAfter(this.sieve, grade, this.owed);
      const stop = end > start + 1 && b[end - 1] === 0x0d ? end - 1 : end;
      cur.added.push(n);
      cur.texts.push(b.toString("utf8", start + 1, stop));
    } else if (first === 0x20) this.next++;
  }

  private flush(): void {
    const cur = this.current;
    if (!cur) return;
    this.current = null;
    const path = this.renameTo ?? headerPath(this.header);
    if (path === null) return;
    cur.path = path;
    if (this.hunkBytes > SPILL_BYTES) cur.streamed = true;
    const prev = this.files.get(path);
    if (!prev) {
      this.files.set(path, cur);
      return;
    }
    // git splits a type change into two sections of one path.
    prev.added.push(...cur.added);
    prev.texts.push(...cur.texts);
    prev.binary ||= cur.binary;
    prev.streamed ||= cur.streamed;
  }

  /** The files of the patch read so far (the commit's, once its last line is in). */
  end(): Map<string, LightFile> {
    this.flush();
    for (const f of this.files.values()) if (f.streamed) f.lines = f.added.map((line, i) => ({ line, text: f.texts[i] ?? "" }));
    return this.files;
  }
}
