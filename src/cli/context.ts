// What every command needs to start: the repo (or plain folder), the rules pack, the policy.
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { GateError } from "../errors.js";
import { topLevelOf } from "../git/exec.js";
import { loadPack } from "../rules/load.js";
import { policyFromBytes } from "../load/config.js";
import { CONFIG_CAP } from "../load/caps.js";
import { readNamedFile } from "../git/door.js";
import type { Policy } from "../config/policy.js";
import type { RulesPack } from "../rules/pack.js";

/**
 * The folder a command reads: --repo as given (a fleet may live in a sub-folder), else the top level
 * of the repository holding the current folder, as git does. A run from `scripts/` must check the
 * whole repository: checking only the folder it was started in would pass a bad seat elsewhere and
 * record that pass for the whole staged tree. Outside any repository: the current folder (--all).
 */
export async function repoDirOf(opt: string | undefined): Promise<string> {
  if (opt !== undefined) return resolve(opt);
  const cwd = process.cwd();
  // A hook runs at the top level, where `.git` is: that case costs no git process.
  if (existsSync(join(cwd, ".git")) && !process.env.GIT_DIR && !process.env.GIT_WORK_TREE) return cwd;
  return (await topLevelOf(cwd)) ?? cwd;
}

/** --config FILE: one policy for the whole run, read from the filesystem. */
export function policyFromFile(file: string | undefined, pack: RulesPack): Policy | undefined {
  if (file === undefined) return undefined;
  let bytes: Buffer;
  try {
    bytes = readNamedFile(file, CONFIG_CAP, "--config");
  } catch (e) {
    if (e instanceof GateError) throw e;
    throw new GateError(`cannot read --config ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, {
      hint: "name an existing kvgate.yaml",
    });
  }
  return policyFromBytes(bytes, file, pack);
}

export { loadPack };
