// The folder git keeps a worktree's state in, found without starting git: the hooks' fast paths
// (src/cli/fast-path.ts, src/cli/fast-hook.ts) need it before anything else, and a process costs more
// than the two file reads this takes. Anything unusual returns null and the full CLI asks git.
import { readFileSync, statSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";

/** The folder git keeps this worktree's state in (`git rev-parse --git-dir`), when cwd is the toplevel. */
export function gitDirAt(cwd: string, env: NodeJS.ProcessEnv): string | null {
  if (env.GIT_WORK_TREE) return null;
  if (env.GIT_DIR) return resolve(cwd, env.GIT_DIR);
  const dotGit = join(cwd, ".git");
  try {
    if (statSync(dotGit).isDirectory()) return dotGit;
    // A linked worktree: `.git` is a file naming its own git dir.
    const m = /^gitdir: (.+)$/m.exec(readFileSync(dotGit, "utf8"));
    if (!m) return null;
    const dir = (m[1] as string).trim();
    return isAbsolute(dir) ? dir : resolve(cwd, dir);
  } catch {
    return null;
  }
}
