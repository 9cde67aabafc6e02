// What `check --staged` does after the verdict: the secrets override records it (issue 5).
import type { CheckResult } from "../../engine/result.js";
import type { Selection } from "../../git/types.js";
import type { Source } from "../source.js";

export interface AfterCheck {
  source: Source;
  selection: Selection;
  result: CheckResult;
  env: Readonly<Record<string, string | undefined>>;
}

export async function afterCheck(_ctx: AfterCheck): Promise<void> {
  // The verdict store lands with the secrets override.
}
