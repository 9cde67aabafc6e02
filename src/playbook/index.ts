// The playbook reader's public surface (contract section 8).
export type { EnvEdit, PlaybookDeploy, PlaybookProblem, PlaybookRead, ReadFile, ReadOptions } from "./types.js";
export { readPlaybook } from "./read.js";
export { overlayEnv, deployedEnv, emptyEnv } from "./overlay.js";
export { driftOf, type Drift } from "./drift.js";
export { playbookReader, playbookPaths, readPlaybooks, playbooksInUnit, deployState, playbookContexts, type BuildService } from "./deploy.js";
