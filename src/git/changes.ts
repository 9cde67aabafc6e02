// Turns two git diffs (`--raw -z` for the file list, `-U0` for added-line numbers) and one cat-file
// batch into ChangedFiles. Symlinks, submodules and unmerged paths are skipped with a notice.
import { posix } from "node:path";
import type { AddedLine, ChangedFile, ChangeNotice, FileStatus } from "./types.js";
import { modeKind, parseRawDiff, type RawEntry } from "./rawdiff.js";
import { parsePatch, type PatchFile } from "./patch.js";
import { pathspec, type Entries, type RepoPlace } from "./snapshots.js";

export interface Changes {
  files: ChangedFile[];
  notices: ChangeNotice[];
  /** Every raw entry (skipped ones too), paths relative to the opened folder. */
  raw: RawEntry[];
  /** Object ids the diff already gave, per side (null: no regular file on that side), for snapshot reads. */
  beforeOids: Map<string, string | null>;
  afterOids: Map<string, string | null>;
}

const COMMON = ["-M", "--no-relative", "--no-ext-diff", "--no-textconv", "--ignore-submodules=none"];
const STATUS: Record<string, FileStatus> = {
  A: "added",
  M: "modified",
  D: "deleted",
  R: "renamed",
  C: "copied",
  T: "typechange",
};

/** Anything that hands out blobs by object name (the per-repo BlobCache, the range's shared reader). */
export interface BlobSource {
  /** `paths` (object name → file) names the file when an object cannot be read. */
  get(names: string[], paths?: ReadonlyMap<string, string>): Promise<Map<string, Buffer | null>>;
}

/** `what` is the diff's operands: `["--cached"]` for the staged change, or `[beforeTree, afterCommit]`. */
export async function diffChanges(place: RepoPlace, cache: BlobSource, what: string[]): Promise<Changes> {
  const spec = pathspec(place);
  const [raw, patch] = await Promise.all([
    place.git.run(["diff", "--raw", "-z", "--no-abbrev", ...COMMON, ...what, ...spec]),
    place.git.run([
      "diff", "-U0", "--inter-hunk-context=0", "--no-color", "--submodule=short",
      "--src-prefix=a/", "--dst-prefix=b/", ...COMMON, ...what, ...spec,
    ]),
  ]);
  return buildChanges(place, cache, parseRawDiff(raw), parsePatch(patch));
}

/** The raw entries sorted out: those to check, the skipped ones as notices, and the oids per side. */
export interface Sorted {
  /** Entries to check (toplevel paths, as given). */
  kept: RawEntry[];
  notices: ChangeNotice[];
  raw: RawEntry[];
  beforeOids: Map<string, string | null>;
  afterOids: Map<string, string | null>;
}

export function relativeTo(prefix: string): (p: string) => string {
  return (p) => (p.startsWith(prefix) ? p.slice(prefix.length) : posix.relative(prefix, p));
}

export function sortEntries(place: Pick<RepoPlace, "prefix">, all: RawEntry[]): Sorted {
  const rel = relativeTo(place.prefix);
  const notices: ChangeNotice[] = [];
  const kept: RawEntry[] = [];
  const raw: RawEntry[] = [];
  const beforeOids = new Map<string, string | null>();
  const afterOids = new Map<string, string | null>();
  for (const e of all) {
    const r = { ...e, path: rel(e.path), oldPath: rel(e.oldPath) };
    raw.push(r);
    afterOids.set(r.path, modeKind(e.newMode) === "file" ? e.newOid : null);
    beforeOids.set(r.oldPath, modeKind(e.oldMode) === "file" ? e.oldOid : null);
    const skip = skipReason(e);
    if (skip) notices.push({ path: r.path, message: skip });
    else kept.push(e);
  }
  return { kept, notices, raw, beforeOids, afterOids };
}

export function statusOf(e: RawEntry): FileStatus {
  return STATUS[e.status] ?? "modified";
}

export async function buildChanges(
  place: Pick<RepoPlace, "prefix">, cache: BlobSource, all: RawEntry[], patch: Map<string, PatchFile>,
): Promise<Changes> {
  const rel = relativeTo(place.prefix);
  const { kept, notices, raw, beforeOids, afterOids } = sortEntries(place, all);
  const paths = new Map<string, string>();
  for (const e of kept) {
    if (modeKind(e.oldMode) === "file") paths.set(e.oldOid, rel(e.oldPath));
    if (modeKind(e.newMode) === "file") paths.set(e.newOid, rel(e.path));
  }
  const oids = kept.flatMap((e) => [e.oldOid, e.newOid]).filter((o) => !/^0+$/.test(o));
  const blobs = await cache.get(oids, paths);
  const files = kept.map((e): ChangedFile => {
    const hadFile = modeKind(e.oldMode) === "file";
    const hasFile = modeKind(e.newMode) === "file";
    const beforeBuf = hadFile ? (blobs.get(e.oldOid) ?? null) : null;
    const afterBuf = hasFile ? (blobs.get(e.newOid) ?? null) : null;
    const fromPatch = patch.get(e.path);
    const binary = (fromPatch?.binary ?? false) || looksBinary(afterBuf ?? beforeBuf);
    const after = afterBuf && !binary ? afterBuf.toString("utf8") : null;
    return {
      path: rel(e.path),
      oldPath: e.status === "R" || e.status === "C" ? rel(e.oldPath) : null,
      status: statusOf(e),
      before: beforeBuf && !binary ? beforeBuf.toString("utf8") : null,
      after,
      binary,
      size: afterBuf?.length ?? 0,
      addedLines: after === null ? [] : linesAt(after, fromPatch?.added ?? []),
    };
  });
  return { files, notices, raw, beforeOids, afterOids };
}

/**
 * HEAD's entries without listing HEAD: the index, with the staged diff undone. null when the index
 * holds a conflict (the diff then does not describe it fully).
 */
export function headFromIndex(index: Entries, raw: RawEntry[]): Entries | null {
  if (raw.some((e) => e.status === "U")) return null;
  const head: Entries = new Map(index);
  for (const e of raw) if (modeKind(e.newMode) !== "absent") head.delete(e.path);
  for (const e of raw) if (modeKind(e.oldMode) !== "absent") head.set(e.oldPath, { mode: e.oldMode, oid: e.oldOid });
  return new Map([...head].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function skipReason(e: RawEntry): string | null {
  if (e.status === "U") return "unmerged (a conflict): resolve it and stage the result";
  const after = modeKind(e.newMode);
  const before = modeKind(e.oldMode);
  const side = after === "absent" ? before : after;
  if (side === "symlink") return "symlink: skipped (only regular files are checked)";
  if (side === "submodule") return "submodule: skipped (check it in its own repository)";
  if (side !== "file") return `unsupported file mode ${e.newMode}: skipped`;
  return null;
}

/** git's own test: a NUL byte in the first 8000 bytes. */
export function looksBinary(buf: Buffer | null): boolean {
  if (!buf) return false;
  return buf.subarray(0, 8000).includes(0);
}

/** Lines split on LF; the text drops a trailing CR so CRLF files read like LF ones. */
export function splitLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines.map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
}

function linesAt(text: string, numbers: number[]): AddedLine[] {
  const lines = splitLines(text);
  return numbers.filter((n) => n >= 1 && n <= lines.length).map((n) => ({ line: n, text: lines[n - 1] as string }));
}

/** Every line of a file, as added (for `--all` and files new to the tree). */
export function allLines(text: string): AddedLine[] {
  return splitLines(text).map((t, i) => ({ line: i + 1, text: t }));
}
