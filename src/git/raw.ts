// One record of `git diff --raw -z --no-abbrev` (and of `git log --raw`):
// `:<mode> <mode> <oid> <oid> <status>\0<path>\0[<path>\0]`.
export interface RawEntry {
  oldMode: string;
  newMode: string;
  oldOid: string;
  newOid: string;
  /** One letter: A C D M R T U X. */
  status: string;
  /** Path before (same as path unless renamed or copied). Relative to the toplevel. */
  oldPath: string;
  path: string;
}

/** The `:<mode> <mode> <oid> <oid> <status>` head of a record; null when it is not one. */
export function rawMeta(meta: string): Pick<RawEntry, "oldMode" | "newMode" | "oldOid" | "newOid" | "status"> | null {
  const m = /^:(\d+) (\d+) ([0-9a-f]+) ([0-9a-f]+) ([A-Z])\d*$/.exec(meta.trim());
  if (!m) return null;
  return { oldMode: m[1] as string, newMode: m[2] as string, oldOid: m[3] as string, newOid: m[4] as string, status: m[5] as string };
}

/** Renames and copies carry two paths (before, after); every other status one. */
export function hasTwoPaths(status: string): boolean {
  return status === "R" || status === "C";
}

export type ModeKind = "absent" | "file" | "symlink" | "submodule" | "other";

export function modeKind(mode: string): ModeKind {
  if (mode === "000000" || /^0+$/.test(mode)) return "absent";
  if (mode.startsWith("100")) return "file";
  if (mode === "120000") return "symlink";
  if (mode === "160000") return "submodule";
  return "other";
}
