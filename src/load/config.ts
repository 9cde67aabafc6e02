// kvgate.yaml: found in a snapshot (kvgate.yaml, else .kvgate.yaml) or given as a file's bytes
// (--config, the Action's config input), decoded strictly, and turned into the Policy. The one place
// the config is found and decoded: a file the gate cannot read as text stops the run (exit 2), never
// a silent fallback to the defaults.
import type { Snapshot } from "../git/types.js";
import type { Policy } from "../config/policy.js";
import type { RulesPack } from "../rules/pack.js";
import { CONFIG_NAMES, loadPolicy } from "../config/load.js";
import { GateError } from "../errors.js";
import { decode } from "./decode.js";
import { CONFIG_CAP, stopLimits } from "./caps.js";

export { CONFIG_NAMES };

export interface ConfigText {
  /** null: no config file (the defaults apply). */
  text: string | null;
  /** The name it was found under, or the first name tried when none was found. */
  file: string;
}

/** The text of a config file's bytes; GateError when they are not UTF-8 text. `label` names it in the error. */
function configText(buf: Buffer | null, label: string): string | null {
  const d = decode(buf, "YAML");
  if (d.problem) throw new GateError(`${label} cannot be read: ${d.problem}`, { hint: `save ${label} as UTF-8 text` });
  return d.text;
}

/** The first of `names` the snapshot holds (default kvgate.yaml, then .kvgate.yaml). */
export async function findConfig(snapshot: Snapshot, names: readonly string[] = CONFIG_NAMES): Promise<ConfigText> {
  const limits = stopLimits(CONFIG_CAP);
  const files = await snapshot.read([...names], limits);
  for (const name of names) {
    const text = configText(limits.check(name, files.get(name) ?? null), name);
    if (text !== null) return { text, file: name };
  }
  return { text: null, file: names[0] ?? CONFIG_NAMES[0] };
}

/** The policy a snapshot's own kvgate.yaml gives. */
export async function policyOf(snapshot: Snapshot, pack: RulesPack): Promise<Policy> {
  const c = await findConfig(snapshot);
  return loadPolicy(c.text, c.file, pack);
}

/** The policy of a config file read from disk (`--config FILE`, the Action's `config` input). */
export function policyFromBytes(buf: Buffer, label: string, pack: RulesPack): Policy {
  return loadPolicy(configText(buf, label), label, pack);
}
