import { SPILL_MARK } from "./spill.js";

// Reads the added-line numbers out of `git diff -U0` output. Sections are matched to files by the
// path in their header (not by position: git splits a type change into two sections).
export interface PatchFile {
  /** Toplevel-relative path after the change (the deleted path for a deletion). */
  path: string;
  /** 1-based line numbers in the after version. */
  added: number[];
  binary: boolean;
  /** With `{ texts: true }`: each added line's text (CR dropped, like splitLines), in step with `added`. */
  texts?: string[];
  /** Set when the file's hunks were too big to keep: the spill file holding them (./spill.ts). */
  spill?: string;
}

export function parsePatch(out: string, opts: { texts?: boolean } = {}): Map<string, PatchFile> {
  const files = new Map<string, PatchFile>();
  let current: PatchFile | null = null;
  let header = "";
  let renameTo: string | null = null;
  let inHunk = false;
  let next = 0;
  const flush = (): void => {
    if (!current) return;
    const path = renameTo ?? headerPath(header);
    if (path === null) return;
    const prev = files.get(path);
    if (prev) {
      prev.added.push(...current.added);
      if (prev.texts && current.texts) prev.texts.push(...current.texts);
      prev.binary ||= current.binary;
      if (current.spill !== undefined) prev.spill = current.spill;
    } else files.set(path, { ...current, path });
  };
  for (const line of out.split("\n")) {
    if (line.startsWith("diff --git ")) {
      flush();
      current = opts.texts ? { path: "", added: [], binary: false, texts: [] } : { path: "", added: [], binary: false };
      header = line.slice("diff --git ".length);
      renameTo = null;
      inHunk = false;
      continue;
    }
    if (!current) continue;
    if (line.startsWith(SPILL_MARK)) {
      current.spill = line.slice(SPILL_MARK.length);
      continue;
    }
    if (!inHunk) {
      if (line.startsWith("rename to ")) renameTo = unquote(line.slice("rename to ".length));
      else if (line.startsWith("copy to ")) renameTo = unquote(line.slice("copy to ".length));
      else if (line.startsWith("Binary files ") || line === "GIT binary patch") current.binary = true;
    }
    // Only a line starting "@@" can be a hunk header (most lines are not: no regex run for them).
    const hunk = line.startsWith("@@") ? /^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line) : null;
    if (hunk) {
      inHunk = true;
      next = Number(hunk[1]);
      continue;
    }
    if (!inHunk) continue;
    // Context lines can appear despite -U0 (diff.interHunkContext), so count them too.
    if (line.startsWith("+")) {
      current.added.push(next++);
      current.texts?.push(line.endsWith("\r") ? line.slice(1, -1) : line.slice(1));
    } else if (line.startsWith(" ")) next++;
  }
  flush();
  return files;
}

/** The b-side path of `a/X b/X` (unrenamed: both halves equal) or of quoted `"a/X" "b/X"`. */
export function headerPath(rest: string): string | null {
  if (rest.endsWith('"')) {
    const start = lastQuotedStart(rest);
    if (start < 0) return null;
    return stripPrefix(unquote(rest.slice(start)), "b/");
  }
  if ((rest.length - 5) % 2 !== 0) return null;
  const half = (rest.length - 5) / 2;
  return rest.slice(rest.length - half);
}

function lastQuotedStart(s: string): number {
  for (let i = s.length - 2; i >= 0; i--) {
    if (s[i] !== '"') continue;
    let backslashes = 0;
    for (let j = i - 1; j >= 0 && s[j] === "\\"; j--) backslashes++;
    if (backslashes % 2 === 0) return i;
  }
  return -1;
}

function stripPrefix(s: string, prefix: string): string {
  return s.startsWith(prefix) ? s.slice(prefix.length) : s;
}

const ESCAPES: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, "\\": 92 };

/** Undoes git's C-style quoting of a path (`"a\tb"`, octal bytes `\303\251`); plain paths pass through. */
export function unquote(s: string): string {
  if (!(s.length >= 2 && s.startsWith('"') && s.endsWith('"'))) return s;
  const bytes: number[] = [];
  const body = [...s.slice(1, -1)];
  for (let i = 0; i < body.length; i++) {
    const ch = body[i] as string;
    if (ch !== "\\") {
      bytes.push(...Buffer.from(ch, "utf8"));
      continue;
    }
    const nextCh = body[i + 1] ?? "";
    const octal = /^[0-7]{3}/.exec(body.slice(i + 1, i + 4).join(""));
    if (octal) {
      bytes.push(parseInt(octal[0], 8));
      i += 3;
    } else {
      bytes.push(ESCAPES[nextCh] ?? nextCh.charCodeAt(0));
      i += 1;
    }
  }
  return Buffer.from(bytes).toString("utf8");
}
