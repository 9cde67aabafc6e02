// The repository files init reads beyond the fleet loader (the card names written in host_vars,
// compose and env files; observed files): listed by git (tracked and untracked, not ignored) and read
// through the one door (docs/gated-files.md#the-door), so a symlink out of the repository, a device or
// a FIFO, or a file over its cap is a reason said to the user, never a read.
import { FileDoor, isRefusal, type Cap } from "../git/door.js";
import { runToolSync } from "../git/exec.js";
import { GateError } from "../errors.js";

/** The paths git lists for these pathspecs, sorted, without node_modules. */
export function listedFiles(root: string, pathspecs: readonly string[]): string[] {
  const r = runToolSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", ...pathspecs], { cwd: root });
  if (r.status !== 0) return [];
  return [...new Set(r.stdout.split("\0").filter((p) => p !== "" && !/(^|\/)node_modules\//.test(p)))].sort();
}

/** A listed file's text, or why it was not read (null: gone since it was listed). */
export function readListed(door: FileDoor, path: string, cap: Cap): { text: string } | { why: string } | null {
  try {
    const got = door.read(path, cap);
    if (got === null) return null;
    if (isRefusal(got)) return { why: got.problem };
    return { text: got.toString("utf8") };
  } catch (e) {
    if (e instanceof GateError) return { why: e.message };
    throw e;
  }
}
