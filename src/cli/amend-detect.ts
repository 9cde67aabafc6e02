// Whether the `git commit` that runs prepare-commit-msg amends HEAD. git says so to the hook only for
// `--amend` that reuses HEAD's message (source `commit`, object `HEAD`); `--amend -m` or `-F` pass
// `message`, so then the command line of the git process above the hook is read (Linux /proc; where
// there is none, only git's own word counts).
import { readFileSync } from "node:fs";

/** `--amend` and its unambiguous abbreviations, as git's option parser accepts them. */
const AMEND = /^--am(e(n(d)?)?)?$/;
/** The hook runs under a shell script (and maybe husky or pre-commit): git is a few parents up. */
const MAX_UP = 6;

function parentOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Field 4, after the command name in parentheses (which may itself hold spaces or parentheses).
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    return Number.isInteger(ppid) && ppid > 1 ? ppid : null;
  } catch {
    return null;
  }
}

function argvOf(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
  } catch {
    return [];
  }
}

export function isAmendCommit(source: string | undefined, object: string | undefined, pid: number = process.ppid): boolean {
  if (source === "commit" && object === "HEAD") return true;
  if (source === "merge" || source === "squash") return false;
  for (let p: number | null = pid, up = 0; p !== null && up < MAX_UP; p = parentOf(p), up++) {
    const argv = argvOf(p);
    const at = argv.findIndex((a) => a === "commit");
    if (at > 0 && /(^|\/)git$/.test(argv[0] ?? "")) return argv.slice(at + 1).some((a) => AMEND.test(a));
  }
  return false;
}
