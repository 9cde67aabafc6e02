// What `check --staged` does after the verdict: it records it, keyed by the staged tree, for
// `kvgate hook prepare-commit-msg` to turn into the commit's Kvgate-Verdict trailer.
import type { CheckResult } from "../../engine/result.js";
import type { Selection } from "../../git/types.js";
import type { Source } from "../source.js";
import { saveVerdict, verdictRecordOf } from "../../secrets/verdict.js";

export interface AfterCheck {
  source: Source;
  selection: Selection;
  result: CheckResult;
}

export async function afterCheck(ctx: AfterCheck): Promise<void> {
  const repo = ctx.source.repo;
  if (ctx.selection.mode !== "staged" || !repo) return;
  const tree = await repo.writeTree();
  saveVerdict(await repo.gitPath("kvgate"), tree, verdictRecordOf(ctx.result, tree));
}
