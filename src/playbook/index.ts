// The playbook reader's public surface (docs/playbooks.md).
export type { PlaybookRead } from "./records.js";
export { readPlaybook } from "./plays.js";
