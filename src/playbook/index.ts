// The playbook reader's public surface (contract section 8).
export type { PlaybookRead } from "./types.js";
export { readPlaybook } from "./plays.js";
