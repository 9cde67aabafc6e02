// The playbook reader's public surface (contract section 8).
export type { PlaybookRead } from "./records.js";
export { readPlaybook } from "./plays.js";
