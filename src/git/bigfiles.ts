// Big files in a diff. readDiff asks git not to diff blobs above UNDIFFED_ABOVE: git's diff of a
// 50 MB file holds both sides and its own work in memory (150 MiB, the peak of the whole check),
// and calls such a file binary without reading it. This settles what those binary sections stand for:
// - a big file new to the tree (added, and no deleted file it could be a rename of) whose diff
//   attribute is unspecified: its blob is streamed from `git cat-file` to a spill file, binary by
//   git's own test (a NUL in its first 8000 bytes) or else every line added, read back as it is scanned;
// - a file git calls binary whatever its size (`-diff`, `binary` in .gitattributes): as it is;
// - anything else (a big file modified, typechanged, or with a diff driver): the diff is read
//   again with every blob diffed, the one git printed before; the big files' added lines are taken
//   from that patch, their two versions are not read into memory (2 x 50 MB, and their text twice).
// (A renamed file is never undiffed: git reads both versions to pair them, and then diffs them.)
import { GateError } from "../errors.js";
import type { BlobReader } from "./blobs.js";
import { readDiff, type DiffRecord } from "./diffstream.js";
import { runGit, streamGit } from "./exec.js";
import { parsePatch } from "./patch.js";
import { modeKind, type RawEntry } from "./raw.js";
import { spillFile, startsBinary } from "./spill.js";

/** readDiff with its big files settled: `what` and `paths` as readDiff takes them. */
export async function readSettledDiff(cwd: string, blobs: BlobReader, what: string[], paths: string[]): Promise<DiffRecord> {
  return settleDiff(cwd, blobs, what, paths, await readDiff(cwd, what, paths));
}

/**
 * A diff read with big blobs left undiffed (readDiff's default, as the hook's fast path reads it)
 * settled as readSettledDiff does: a big text file is streamed or re-diffed, never taken for binary.
 */
export async function settleDiff(cwd: string, blobs: BlobReader, what: string[], paths: string[], diff: DiffRecord): Promise<DiffRecord> {
  const limit = diff.undiffedAbove;
  if (limit === undefined) return diff;
  const patch = parsePatch(diff.patch);
  const isFile = (mode: string): boolean => modeKind(mode) === "file";
  const undiffed = diff.raw.filter((e) => patch.get(e.path)?.binary === true && (isFile(e.oldMode) || isFile(e.newMode)));
  if (undiffed.length === 0) return diff;
  const deleted = diff.raw.filter((e) => e.status === "D" && isFile(e.oldMode));
  // Each object with its file, for the message when one cannot be read (the all-zero id is no object).
  const named = new Map(
    [...undiffed, ...deleted]
      .flatMap((e) => [[e.oldOid, e.oldPath] as const, [e.newOid, e.path] as const])
      .filter(([o]) => !/^0+$/.test(o)),
  );
  const sizes = await blobs.sizes([...named.keys()], named);
  const size = (oid: string): number => sizes.get(oid) ?? 0;
  const big = undiffed.filter((e) => size(e.oldOid) > limit || size(e.newOid) > limit);
  if (big.length === 0) return diff;
  // git's diff of every blob, read again; the big files' contents are still not read into memory.
  const whole = async (): Promise<DiffRecord> => ({
    ...(await readDiff(cwd, what, paths, { wholeBlobs: true })),
    heldOut: new Set(big.map((e) => e.path)),
  });
  const attrs = await diffAttributes(cwd, [...new Set(big.flatMap((e) => [e.oldPath, e.path]))]);
  if (attrs === null) return whole();
  // git pairs a rename by similarity only with a deleted file of a size within half of it: with such
  // a deletion in the diff, an added big file may be one side of a rename the threshold hid.
  const renameSource = deleted.some((e) => size(e.oldOid) * 2 > limit);
  const streamed: RawEntry[] = [];
  for (const e of big) {
    if (attrs.get(e.path) === "unset" && attrs.get(e.oldPath) === "unset") continue;
    const added = e.status === "A" && modeKind(e.oldMode) === "absent" && isFile(e.newMode);
    if (!added || renameSource || attrs.get(e.path) !== "unspecified") return whole();
    streamed.push(e);
  }
  const blobFiles = new Map<string, string>();
  for (const e of streamed) {
    const file = await spilledBlob(cwd, e.newOid);
    // No file: git could not read the blob, or there is no room to spill it. git's own diff then
    // (held in memory, slower, still scanned whole), which says what is wrong with an object.
    if (file === undefined) return whole();
    // null: binary by git's test, as the patch already says.
    if (file !== null) blobFiles.set(e.path, file);
  }
  return { ...diff, blobFiles };
}

/**
 * A blob in a spill file of its own, written there by git; null when git's test calls it binary (its
 * start is read first, so a big binary file is not copied); undefined when it could not be had.
 */
async function spilledBlob(cwd: string, oid: string): Promise<string | null | undefined> {
  const blob = ["cat-file", "blob", oid];
  const failed = (stderr: string): GateError => new GateError(`git cat-file failed: ${stderr}`);
  try {
    if (await startsBinary(streamGit(cwd, blob, failed))) return null;
    return await spillFile(async (fd) => {
      const r = await runGit(cwd, blob, { toFile: fd });
      if (r.code !== 0) throw failed(r.stderr);
    });
  } catch {
    return undefined;
  }
}

/**
 * The `diff` attribute of each path (`unspecified`, `set`, `unset`, or a driver's name), from
 * .gitattributes as git diff reads them; null when git could not say (the whole diff is read then).
 */
async function diffAttributes(cwd: string, paths: string[]): Promise<Map<string, string> | null> {
  const r = await runGit(cwd, ["check-attr", "-z", "diff", "--", ...paths]);
  if (r.code !== 0) return null;
  const fields = r.stdout.toString("utf8").split("\0");
  const out = new Map<string, string>();
  for (let i = 0; i + 2 < fields.length; i += 3) out.set(fields[i] as string, fields[i + 2] as string);
  return out;
}
