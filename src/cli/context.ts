// What every command needs to start: the repo (or plain folder), the rules pack, the policy.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { GateError } from "../errors.js";
import { loadPack } from "../rules/load.js";
import { policyFromBytes } from "../load/config.js";
import type { Policy } from "../config/policy.js";
import type { RulesPack } from "../rules/pack.js";

export function repoDirOf(opt: string | undefined): string {
  return resolve(opt ?? process.cwd());
}

/** --config FILE: one policy for the whole run, read from the filesystem. */
export function policyFromFile(file: string | undefined, pack: RulesPack): Policy | undefined {
  if (file === undefined) return undefined;
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (e) {
    throw new GateError(`cannot read --config ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, { hint: "name an existing kvgate.yaml" });
  }
  return policyFromBytes(bytes, file, pack);
}

export { loadPack };
