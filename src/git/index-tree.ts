// `git write-tree` of the index without touching it: write-tree takes the index lock (it refreshes the
// cached trees in the index), so another git holding `index.lock` would make a check fail, and a hook
// would rewrite the very index `git commit` is about to commit. It runs on a private copy instead; the
// objects it writes are the same and the real index is never written.
import { copyFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { makeTempFolder } from "./temp.js";
import { GateError } from "../errors.js";
import { gitRunner } from "./exec.js";

/** The index's tree id; `index` is the index file (`--git-path index`, which honours GIT_INDEX_FILE). */
export async function writeTreeOf(root: string, index: string): Promise<string> {
  // The copy is made synchronously: a few milliseconds of disk at most, where the promise versions
  // cost the hook's fast path two thread-pool round trips before git could even start.
  // Guarded (./temp.ts): a hook killed mid-write-tree leaves no copy of the index behind.
  const temp = makeTempFolder("index");
  try {
    const copy = join(temp.path, "index");
    try {
      copyFileSync(index, copy);
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      // No index yet (nothing ever staged): write-tree of a missing index is the empty tree.
      if (err.code !== "ENOENT") {
        throw new GateError(`cannot read the index ${index}: ${err.code ?? err.message}`, {
          hint: "make the repository readable by the user running kvgate",
          cause: err,
        });
      }
    }
    return (await gitRunner(root, { env: { GIT_INDEX_FILE: copy } }).run(["write-tree"])).trim();
  } finally {
    temp.dispose();
  }
}

/** Where the index is for a run at `cwd` with git dir `gitDir`: GIT_INDEX_FILE (as git resolves it) or `<gitDir>/index`. */
export function indexFileAt(cwd: string, gitDir: string, env: NodeJS.ProcessEnv): string {
  return env.GIT_INDEX_FILE ? resolve(cwd, env.GIT_INDEX_FILE) : join(gitDir, "index");
}
