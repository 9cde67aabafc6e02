// `kvgate hook prepare-commit-msg` as git runs it on every commit, answered from the small hook bundle
// (dist/fast.cjs) instead of the whole CLI: two git processes started at once (`write-tree` of a copy of
// the index for the tree the commit records, `config` for the comment character), and the stored
// verdict found by the index file's checksum (a third process, the staged raw diff, only when git
// rewrote the index since the check).
// It does what src/cli/commands/hook.ts does; anything unusual (a flag, a missing git dir, a git or
// file failure) returns null, and the CLI's own command runs and reports it.
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { runGit } from "../git/exec.js";
import { indexFileAt, writeTreeOf } from "../git/index-tree.js";
import { loadVerdict, loadVerdictOfIndex } from "../git/verdict-store.js";
import { headAt, indexChecksum, stagedKey } from "../git/staged-key.js";
import { readRaw } from "../git/diffstream.js";
import { prepareCommitMsg } from "../secrets/trailers.js";
import { gitDirAt } from "./git-dir.js";
import { isAmendCommit } from "./amend-detect.js";

/** True when git replays commits (rebase, cherry-pick): their trailers record the run that gated them. */
export function isReplay(env: NodeJS.ProcessEnv): boolean {
  return /^(rebase|cherry-pick)/.test(env.GIT_REFLOG_ACTION ?? "");
}

/** The exit code when answered here, null when the CLI must run. Never throws. */
export async function fastPrepareCommitMsg(argv: readonly string[], env: NodeJS.ProcessEnv, cwd: string): Promise<number | null> {
  const [, name, file, source, object] = argv;
  if (env.KVGATE_FAST_PATH === "0" || name !== "prepare-commit-msg" || file === undefined || argv.length > 5) return null;
  if (argv.some((a) => a.startsWith("-"))) return null;
  if (isReplay(env)) return 0;
  // An amend joins HEAD's trailers with the run's (src/secrets/amend.ts): the CLI's command does it.
  if (isAmendCommit(source, object)) return null;
  const gitDir = gitDirAt(cwd, env);
  if (!gitDir) return null;
  try {
    const path = resolve(cwd, file);
    const message = readFileSync(path, "utf8");
    const indexFile = indexFileAt(cwd, gitDir, env);
    const [treeId, commentChar] = await Promise.all([writeTreeOf(cwd, indexFile), runGit(cwd, ["config", "--get", "core.commentChar"])]);
    // `config --get` exits 1 when the key is unset; anything else is the CLI's to report.
    if (commentChar.code !== 0 && commentChar.code !== 1) return null;
    const char = commentChar.code === 0 ? commentChar.stdout.toString("utf8").replace(/\n$/, "") : "";
    const dir = join(gitDir, "kvgate");
    let record = loadVerdictOfIndex(dir, indexChecksum(indexFile));
    if (!record) {
      const head = headAt(gitDir);
      if (head === undefined) return null;
      record = loadVerdict(dir, stagedKey(head, await readRaw(cwd, ["--cached"])));
    }
    const out = prepareCommitMsg(message, source, record, treeId, char !== "" && char !== "auto" ? { commentChar: char } : {});
    if (out !== message) writeFileSync(path, out);
    if (env.KVGATE_DEBUG) process.stderr.write("kvgate: fast hook: taken\n");
    return 0;
  } catch {
    return null;
  }
}
