// Where the secrets override variable (secrets.override, default ALLOW_SECRETS) may come from. It is a
// decision made at commit time, in the pre-commit hook's environment (`ALLOW_SECRETS=1 git commit`),
// and recorded in the commit's trailers. A run over commits that already exist (--commit, --range,
// --all: CI) never reads it from the environment: there the runner's own variables (GITHUB_RUN_ATTEMPT=1,
// CI=true) are set, and a change's kvgate.yaml could name one of them to let its own secret through.
import type { Selection } from "../git/types.js";

/** The environment the checks see: the process's for --staged, none otherwise. */
export function overrideEnv(selection: Selection, env: NodeJS.ProcessEnv): Readonly<Record<string, string | undefined>> {
  return selection.mode === "staged" ? env : {};
}
