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

export async function hookCommand(argv: string[]): Promise<number> {
  const { positionals } = parse(argv, {}, 4);
  const [name, file, source] = positionals;
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
  const record = loadVerdictOfIndex(dir, index) ?? loadVerdict(dir, await repo.stagedKey());
  const commentChar = (await repo.configValue("core.commentChar")) ?? undefined;
  const out = prepareCommitMsg(message, source, record, tree, commentChar && commentChar !== "auto" ? { commentChar } : {});
  if (out !== message) writeFileSync(path, out);
  return 0;
}
