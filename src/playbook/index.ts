// The playbook reader's public surface (contract section 8).
export type { EnvEdit, PlaybookDeploy, PlaybookProblem, PlaybookRead, ReadFile, ReadOptions } from "./types.js";
export { readPlaybook } from "./plays.js";
export { overlayEnv, deployedEnv, emptyEnv } from "./overlay.js";
export { driftOf, settingKeysOf, type Drift, type SettingKeys } from "./drift.js";
