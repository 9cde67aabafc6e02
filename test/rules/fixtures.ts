// Env files and inventories shared by the rule tables that read a repository as files.
export const FLEET_H = "fleet:\n  hosts:\n    h: { gpus: [ { index: 0, total: 96GiB }, { index: 1, total: 96GiB } ] }\n";
export const radianceEnv = (extra: string): string => `ENGINE=radiance\nHOST=h\nGPU=0,1\n${extra}\n`;
/** A string as a RegExp that matches it literally. */
export const literally = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
