// What `check --staged` does around the verdict: it records it, keyed by the staged tree, for
// `kvgate hook prepare-commit-msg` to turn into the commit's Kvgate-Verdict trailer. The tree and
// the folder are asked of git while the checks run, so the hook does not wait for them afterwards.
import type { CheckResult } from "../../engine/result.js";
import type { Selection } from "../../git/types.js";
import type { Source } from "../source.js";
import { saveVerdict, verdictRecordOf } from "../../secrets/verdict.js";

export interface VerdictRecording {
  save(result: CheckResult): Promise<void>;
}

export function startVerdictRecording(source: Source, selection: Selection): VerdictRecording {
  const repo = source.repo;
  if (selection.mode !== "staged" || !repo) return { async save() {} };
  const where = Promise.all([repo.writeTree(), repo.gitPath("kvgate")]);
  // Reported when awaited in save(); never an unhandled rejection if the checks fail first.
  where.catch(() => {});
  return {
    async save(result) {
      const [tree, dir] = await where;
      const record = verdictRecordOf(result, tree);
      // `--repo <sub-folder>` checked part of the tree: its pass is not the tree's pass (the trailer
      // would then vouch for files the run never read). Its fail still stands for the whole tree.
      if (repo.prefix !== "" && record.verdict !== "fail") return;
      saveVerdict(dir, tree, record);
    },
  };
}
