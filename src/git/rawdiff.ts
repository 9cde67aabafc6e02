// Parses `git diff --raw -z --no-abbrev` output: `:<mode> <mode> <oid> <oid> <status>\0<path>\0[<path>\0]`.
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

export function parseRawDiff(out: string): RawEntry[] {
  const parts = out.split("\0");
  const entries: RawEntry[] = [];
  let i = 0;
  while (i < parts.length) {
    const meta = parts[i++] ?? "";
    if (meta === "") continue;
    const m = /^:(\d+) (\d+) ([0-9a-f]+) ([0-9a-f]+) ([A-Z])\d*$/.exec(meta.trim());
    if (!m) throw new Error(`unexpected git diff --raw record: ${JSON.stringify(meta)}`);
    const status = m[5] as string;
    const first = parts[i++] ?? "";
    const second = status === "R" || status === "C" ? (parts[i++] ?? "") : first;
    entries.push({
      oldMode: m[1] as string,
      newMode: m[2] as string,
      oldOid: m[3] as string,
      newOid: m[4] as string,
      status,
      oldPath: first,
      path: second,
    });
  }
  return entries;
}

export type ModeKind = "absent" | "file" | "symlink" | "submodule" | "other";

export function modeKind(mode: string): ModeKind {
  if (/^0+$/.test(mode)) return "absent";
  if (mode.startsWith("100")) return "file";
  if (mode === "120000") return "symlink";
  if (mode === "160000") return "submodule";
  return "other";
}
