// kvgate hook prepare-commit-msg FILE [SOURCE [SHA]]: installed as git's prepare-commit-msg hook
// (which --no-verify does not skip), it writes the Kvgate-Verdict trailer — and a
// Kvgate-Allowed-Secret trailer per secret the override let through — from the verdict that
// `check --staged` stored for this exact staged change (found by the index file's checksum, else by
// HEAD and the staged diff). No stored verdict means the gate did not run: not-run.
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { parse } from "../args.js";
import { GateError, UsageError } from "../../errors.js";
import { openRepo } from "../../git/index.js";
import { loadVerdict, loadVerdictOfIndex } from "../../git/verdict-store.js";
import { prepareCommitMsg } from "../../secrets/trailers.js";
import { isReplay } from "../fast-hook.js";
import { isAmendCommit } from "../amend-detect.js";
import { amendedHeadOf, amendedRecord } from "../../secrets/amend.js";
import { runGit } from "../../git/exec.js";
import type { VerdictRecord } from "../../git/verdict-store.js";

export async function hookCommand(argv: string[]): Promise<number> {
  const { positionals } = parse(argv, {}, 4);
  const [name, file, source, object] = positionals;
  if (name !== "prepare-commit-msg") throw new UsageError(`unknown hook "${name ?? ""}": kvgate provides prepare-commit-msg`);
  if (!file) throw new UsageError("hook prepare-commit-msg needs the message FILE git passes");
  // A rebase or cherry-pick replays commits whose trailers record the run that gated them; the
  // replay itself runs no pre-commit, so rewriting them would turn every pick into not-run.
  if (isReplay(process.env)) return 0;
  const repo = await openRepo(process.cwd());
  const path = resolve(process.cwd(), file);
  let message: string;
  try {
    message = readFileSync(path, "utf8");
  } catch (e) {
    throw new GateError(`cannot read the commit message file ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const [tree, dir, index] = await Promise.all([repo.writeTree(), repo.gitPath("kvgate"), repo.indexChecksum()]);
  const stored = loadVerdictOfIndex(dir, index) ?? loadVerdict(dir, await repo.stagedKey());
  const record = isAmendCommit(source, object) ? await amendedVerdict(repo.root, stored, tree) : stored;
  const commentChar = (await repo.configValue("core.commentChar")) ?? undefined;
  const out = prepareCommitMsg(message, source, record, tree, commentChar && commentChar !== "auto" ? { commentChar } : {});
  if (out !== message) writeFileSync(path, out);
  return 0;
}

/** An amend's record: the staged run's joined with HEAD's own trailers (src/secrets/amend.ts). */
async function amendedVerdict(root: string, stored: VerdictRecord | null, tree: string): Promise<VerdictRecord | null> {
  const log = await runGit(root, ["log", "-1", "--format=%B", "HEAD"]);
  if (log.code !== 0) return stored; // no HEAD: nothing is amended
  const head = amendedHeadOf(log.stdout.toString("utf8"));
  const files = [...new Set(head.allowed.flatMap((a) => (a.file === null ? [] : [a.file])))];
  const there = new Set<string>();
  if (files.length > 0) {
    const ls = await runGit(root, ["ls-tree", "-r", "-z", "--name-only", "--full-tree", tree, "--", ...files.map((f) => `:(literal)${f}`)]);
    if (ls.code !== 0) throw new GateError(`git ls-tree ${tree} failed: ${ls.stderr.trim()}`);
    for (const f of ls.stdout.toString("utf8").split("\0")) if (f !== "") there.add(f);
  }
  return amendedRecord(stored, head, (f) => there.has(f));
}
