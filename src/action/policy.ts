// policy-from in the Action (docs/action.md). With `base` (the default), the policy of the run is the
// base commit's: its kvgate.yaml, and its .kvgateignore when it has one. A pull request that loosens
// its own kvgate.yaml or adds fingerprints to .kvgateignore is checked under the rules it is changing,
// so it cannot approve itself. A base that cannot be found fails the step with the fix: falling back to
// the head's policy would hand the choice back to the change under review.
import { isAbsolute, relative, resolve, sep } from "node:path";
import { FileDoor, isRefusal, readNamedFile } from "../git/door.js";
import { CONFIG_CAP } from "../load/caps.js";
import { GateError } from "../errors.js";
import type { Repo } from "../git/index.js";
import type { Snapshot } from "../git/types.js";
import { loadPolicy } from "../config/load.js";
import { CONFIG_NAMES, findConfig, policyFromBytes } from "../load/config.js";
import type { Policy } from "../config/policy.js";
import type { RulesPack } from "../rules/pack.js";
import type { ActionInputs } from "./inputs.js";

const NO_BASE_HINT =
  "give actions/checkout `fetch-depth: 0` so the default branch is there to compare with, or set the `base` input; " +
  "to check this run under each commit's own policy instead, set `policy-from: head` knowingly";

export interface RunPolicy {
  /** The policy fixed for the run; undefined: each unit's own kvgate.yaml (policy-from: head, no config input). */
  policy: Policy | undefined;
  /** The base snapshot whose policy files hold for every unit (policy-from: base). */
  base: Snapshot | null;
}

export async function policyFor(
  repo: Repo,
  inputs: Pick<ActionInputs, "policyFrom" | "config">,
  policyRev: string | null,
  workspace: string,
  pack: RulesPack,
  log: (m: string) => void,
): Promise<RunPolicy> {
  if (inputs.policyFrom === "base") {
    if (policyRev === null) {
      throw new GateError("policy-from: base, but there is no base commit to read the policy from (kvgate.yaml, .kvgateignore)", {
        hint: NO_BASE_HINT,
      });
    }
    const names = inputs.config ? [inputs.config] : [...CONFIG_NAMES];
    const at = policyRev.slice(0, 12);
    const base = await repo.snapshot(policyRev);
    const found = await findConfig(base, names);
    const ignore = (await base.read([".kvgateignore"])).get(".kvgateignore");
    const ignoreNote = ignore ? " and its .kvgateignore" : "";
    if (found.text !== null) {
      log(`kvgate: policy from ${found.file}${ignoreNote} at the base commit ${at}`);
      return { policy: loadPolicy(found.text, `${found.file} (at ${at})`, pack), base };
    }
    log(`kvgate: the base commit ${at} has no ${names.join(" or ")}: the defaults apply${ignoreNote ? `, with its .kvgateignore` : ""}`);
    return { policy: loadPolicy(null, found.file, pack), base };
  }
  if (inputs.config === null) return { policy: undefined, base: null };
  const file = isAbsolute(inputs.config) ? inputs.config : resolve(workspace, inputs.config);
  let bytes: Buffer;
  try {
    bytes = readConfigInput(workspace, file, inputs.config);
  } catch (e) {
    if (e instanceof GateError) throw e;
    throw new GateError(`cannot read the config input ${inputs.config}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, {
      hint: "name a kvgate.yaml path relative to the repository root",
    });
  }
  return { policy: policyFromBytes(bytes, inputs.config, pack), base: null };
}

/** The config input's bytes: a file of the checkout through the door (a symlink out of it is refused), any other as named. */
function readConfigInput(workspace: string, file: string, shown: string): Buffer {
  const rel = relative(workspace, file);
  if (rel.startsWith("..") || isAbsolute(rel)) return readNamedFile(file, CONFIG_CAP, "the config input");
  const got = new FileDoor(workspace).read(rel.split(sep).join("/"), CONFIG_CAP);
  if (got === null) throw Object.assign(new Error(`ENOENT: ${shown}`), { code: "ENOENT" });
  if (isRefusal(got)) throw new GateError(`the config input ${got.message}`, { hint: got.hint });
  return got;
}
