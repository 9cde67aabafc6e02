// Turns one parsed diff (raw entries and patch, from diffstream.ts) into ChangedFiles, the same way
// for the staged change, a commit, a range and each commit of a streamed range. Symlinks, submodules
// and unmerged paths are skipped with a notice.
import { posix } from "node:path";
import type { AddedLine, ChangedFile, ChangeNotice, FileStatus, LineSieve } from "./types.js";
import { modeKind, type RawEntry } from "./raw.js";
import { parsePatch, type PatchFile } from "./patch.js";
import type { DiffRecord } from "./diffstream.js";
import type { BlobReader } from "./blobs.js";
import type { Known } from "./snapshots.js";
import { blobLines, spilledAddedLines } from "./spill.js";
import type { LightFile } from "./light-patch.js";

export interface Changes {
  files: ChangedFile[];
  notices: ChangeNotice[];
  /** Every raw entry (skipped ones too), paths relative to the opened folder. */
  raw: RawEntry[];
  /** What the diff already says of each side (null: no entry there), so reads need no listing. */
  before: Known;
  after: Known;
}

const STATUS: Record<string, FileStatus> = {
  A: "added",
  M: "modified",
  D: "deleted",
  R: "renamed",
  C: "copied",
  T: "typechange",
};

export function relativeTo(prefix: string): (p: string) => string {
  return (p) => (p.startsWith(prefix) ? p.slice(prefix.length) : posix.relative(prefix, p));
}

/** The raw entries sorted out: those to check (toplevel paths), the skipped ones as notices, and each side. */
interface Sorted extends Omit<Changes, "files"> {
  kept: RawEntry[];
}

function sortEntries(prefix: string, all: RawEntry[]): Sorted {
  const rel = relativeTo(prefix);
  const notices: ChangeNotice[] = [];
  const kept: RawEntry[] = [];
  const raw: RawEntry[] = [];
  const before: Known = new Map();
  const after: Known = new Map();
  for (const e of all) {
    const r: RawEntry = {
      oldMode: e.oldMode,
      newMode: e.newMode,
      oldOid: e.oldOid,
      newOid: e.newOid,
      status: e.status,
      path: rel(e.path),
      oldPath: rel(e.oldPath),
    };
    raw.push(r);
    after.set(r.path, modeKind(e.newMode) === "absent" ? null : { mode: e.newMode, oid: e.newOid });
    before.set(r.oldPath, modeKind(e.oldMode) === "absent" ? null : { mode: e.oldMode, oid: e.oldOid });
    const skip = skipReason(e);
    if (skip) notices.push({ path: r.path, message: skip });
    else kept.push(e);
  }
  return { kept, notices, raw, before, after };
}

function statusOf(e: RawEntry): FileStatus {
  return STATUS[e.status] ?? "modified";
}

/** Files with their contents read (both sides, by object id, in one batch). */
export async function fullChanges(prefix: string, blobs: BlobReader, diff: DiffRecord): Promise<Changes> {
  const rel = relativeTo(prefix);
  // A big file held out of memory takes its added lines' texts from the patch.
  const patch = parsePatch(diff.patch, { texts: diff.heldOut !== undefined && diff.heldOut.size > 0 });
  const sorted = sortEntries(prefix, diff.raw);
  const paths = new Map<string, string>();
  const held = (e: RawEntry): boolean => diff.heldOut?.has(e.path) === true;
  const streamed = (e: RawEntry): boolean => streamSource(diff, patch, e) !== null;
  // A streamed or held-out file is too big to read whole, and a binary one is not read (only its size is used).
  const unread = sorted.kept.filter(
    (e) => modeKind(e.newMode) === "file" && (streamed(e) || held(e) || patch.get(e.path)?.binary === true),
  );
  const unreadSizes = await afterSizes(blobs, unread, rel);
  for (const e of sorted.kept) {
    if (streamed(e) || held(e) || patch.get(e.path)?.binary === true) continue;
    if (modeKind(e.oldMode) === "file") paths.set(e.oldOid, rel(e.oldPath));
    if (modeKind(e.newMode) === "file") paths.set(e.newOid, rel(e.path));
  }
  const read = await blobs.contents([...paths.keys()], paths);
  const files = sorted.kept.map((e): ChangedFile => {
    const hasFile = modeKind(e.newMode) === "file";
    const size = hasFile ? (unreadSizes.get(e.newOid) ?? 0) : 0;
    const source = streamSource(diff, patch, e);
    if (source !== null) return streamedFile(e, rel, size, source);
    const fromPatch = patch.get(e.path);
    if (fromPatch?.binary === true) return { ...fileOf(e, rel), binary: true, size, addedLines: [] };
    if (held(e)) {
      const texts = fromPatch?.texts ?? [];
      const addedLines = hasFile ? (fromPatch?.added ?? []).map((line, i) => ({ line, text: texts[i] ?? "" })) : [];
      return { ...fileOf(e, rel), size, addedLines };
    }
    const beforeBuf = modeKind(e.oldMode) === "file" ? (read.get(e.oldOid) ?? null) : null;
    const afterBuf = hasFile ? (read.get(e.newOid) ?? null) : null;
    const binary = looksBinary(afterBuf ?? beforeBuf);
    const after = afterBuf && !binary ? afterBuf.toString("utf8") : null;
    return {
      ...fileOf(e, rel),
      before: beforeBuf && !binary ? beforeBuf.toString("utf8") : null,
      after,
      binary,
      size: afterBuf?.length ?? 0,
      addedLines: after === null ? [] : linesAt(after, fromPatch?.added ?? []),
    };
  });
  return { ...sorted, files };
}

/** A changed file's identity, with no contents and nothing added yet. */
function fileOf(e: RawEntry, rel: (p: string) => string): ChangedFile {
  return {
    path: rel(e.path),
    oldPath: e.status === "R" || e.status === "C" ? rel(e.oldPath) : null,
    status: statusOf(e),
    before: null,
    after: null,
    binary: false,
    size: 0,
    addedLines: [],
  };
}

/** Where a file too big to hold is read from as it is scanned: its spilled patch, or its whole blob. */
type StreamSource = { patch: string } | { blob: string };

function streamSource(diff: DiffRecord, patch: Map<string, PatchFile>, e: RawEntry): StreamSource | null {
  const blob = diff.blobFiles?.get(e.path);
  if (blob !== undefined) return { blob };
  const spill = patch.get(e.path)?.spill;
  return spill === undefined ? null : { patch: spill };
}

/** The sizes of these entries' after blobs, by id (no blob read; no process when there are none). */
async function afterSizes(
  blobs: BlobReader,
  entries: readonly RawEntry[],
  rel: (p: string) => string,
): Promise<Map<string, number | null>> {
  if (entries.length === 0) return new Map();
  return blobs.sizes(
    entries.map((e) => e.newOid),
    new Map(entries.map((e) => [e.newOid, rel(e.path)])),
  );
}

/**
 * Files without contents (`before`/`after` null) for secrets-only work: added lines from the patch.
 * Sizes are looked up (one blob reader round trip, no blob read) only for the files whose findings
 * show one: binary files (skipped with their size) and streamed ones; a text file's is null, which
 * spares a history's audit a lookup per changed file.
 */
export async function lightChanges(
  prefix: string,
  blobs: BlobReader,
  diff: DiffRecord & { files?: Map<string, LightFile> },
): Promise<Changes> {
  if (diff.files) return keptChanges(prefix, diff.raw, diff.files);
  const rel = relativeTo(prefix);
  const patch = parsePatch(diff.patch, { texts: true });
  const sorted = sortEntries(prefix, diff.raw);
  // git decides binary for the patch; a NUL in an added line means a text diff was forced on it.
  const isBinary = (p: PatchFile | undefined): boolean => (p?.binary ?? false) || (p?.texts ?? []).some((t) => t.includes("\0"));
  const binaries = new Set(sorted.kept.filter((e) => isBinary(patch.get(e.path))));
  const sized = sorted.kept.filter((e) => modeKind(e.newMode) === "file" && (patch.get(e.path)?.spill !== undefined || binaries.has(e)));
  const sizes = await afterSizes(blobs, sized, rel);
  const files = sorted.kept.map((e): ChangedFile => {
    const hasFile = modeKind(e.newMode) === "file";
    const p = patch.get(e.path);
    const source = streamSource(diff, patch, e);
    if (source !== null) return streamedFile(e, rel, hasFile ? (sizes.get(e.newOid) ?? 0) : 0, source);
    const texts = p?.texts ?? [];
    const binary = binaries.has(e);
    const addedLines: AddedLine[] = hasFile && !binary ? (p?.added ?? []).map((line, i) => ({ line, text: texts[i] ?? "" })) : [];
    return {
      path: rel(e.path),
      oldPath: e.status === "R" || e.status === "C" ? rel(e.oldPath) : null,
      status: statusOf(e),
      before: null,
      after: null,
      binary,
      size: !hasFile ? 0 : binary ? (sizes.get(e.newOid) ?? 0) : null,
      addedLines,
    };
  });
  return { ...sorted, files };
}

/**
 * lightChanges of a patch read through the secret scan's sieve (./light-patch.ts): the added lines it
 * kept, binary as git said it, and no size looked up (null) — not even for a binary file.
 */
function keptChanges(prefix: string, raw: RawEntry[], files: ReadonlyMap<string, LightFile>): Changes {
  const rel = relativeTo(prefix);
  const sorted = sortEntries(prefix, raw);
  const out = sorted.kept.map((e): ChangedFile => {
    const hasFile = modeKind(e.newMode) === "file";
    const p = files.get(e.path);
    const base = { ...fileOf(e, rel), size: hasFile ? null : 0 };
    // Too big to hold in full: scanned as a spilled file would be (every detector, in windows).
    if (p?.streamed) return hasFile ? { ...base, streamedLines: () => p.lines ?? [] } : base;
    const binary = p?.binary ?? false;
    const texts = p?.texts ?? [];
    const addedLines: AddedLine[] = hasFile && !binary ? (p?.added ?? []).map((line, i) => ({ line, text: texts[i] ?? "" })) : [];
    return { ...base, binary, addedLines };
  });
  return { ...sorted, files: out };
}

/** A file too big to hold: no contents in memory, its added lines read back from disk as they are scanned. */
function streamedFile(e: RawEntry, rel: (p: string) => string, size: number, source: StreamSource): ChangedFile {
  const hasFile = modeKind(e.newMode) === "file";
  const lines = (sieve?: LineSieve): Iterable<AddedLine> =>
    "blob" in source ? blobLines(source.blob, sieve) : spilledAddedLines(source.patch, sieve);
  return { ...fileOf(e, rel), size, ...(hasFile ? { streamedLines: lines } : {}) };
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
function splitLines(text: string): string[] {
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
