// What a hand-built fixture stands for, as the files a user writes. The rule tables build many fleets
// in memory (test/kv/fixtures.ts, test/radiance/fixtures.ts, test/secrets/helpers.ts); each builder
// records here the env file, ledger facts file or kvgate.yaml its object stands for, so the rule pages
// (test/docs/) can show a case as files. The pages run those files through the real loader before
// showing them: a record that drifts from its object is not shown, never shown wrong.
import type { Config } from "../../src/config/schema.js";
import { resolvePolicy, type Policy } from "../../src/config/policy.js";
import type { Service } from "../../src/model/types.js";
import type { LedgerEntry } from "../../src/parse/ledger-facts.js";
import type { PlaybookRead } from "../../src/playbook/records.js";
import { DEFAULTS } from "./policy-defaults.js";

const texts = new WeakMap<Service | LedgerEntry, string>();
const configs = new WeakMap<Policy, Config>();
const trees = new WeakMap<PlaybookRead, Record<string, string>>();

/** Records the text a fixture object stands for; returns the object. */
export function standsFor<T extends Service | LedgerEntry>(object: T, text: string): T {
  texts.set(object, text);
  return object;
}

export function textOf(object: Service | LedgerEntry): string | undefined {
  return texts.get(object);
}

/** Records the files a playbook was read from (the playbook and what it includes); returns the read. */
export function readFrom(read: PlaybookRead, files: Record<string, string>): PlaybookRead {
  trees.set(read, files);
  return read;
}

export function filesOf(read: PlaybookRead): Record<string, string> | undefined {
  return trees.get(read);
}

/** The policy a kvgate.yaml holding `config` gives (over rules/policy.yaml's defaults), remembering the config. */
export function policyFrom(config: Config): Policy {
  const policy = resolvePolicy(DEFAULTS, config);
  configs.set(policy, config);
  return policy;
}

/** The kvgate.yaml content a policy was made from (undefined: not made by policyFrom). */
export function configOf(policy: Policy): Config | undefined {
  return configs.get(policy);
}

/** A flag value as a shell word. */
function shellWord(v: string): string {
  return /^[A-Za-z0-9._/:=@%+,-]+$/.test(v) ? v : `'${v.replace(/'/g, `'\\''`)}'`;
}

/** A double-quoted env value: `\`, `"`, `$` and a backquote escaped. */
function doubleQuoted(v: string): string {
  return `"${v.replace(/[\\"$`]/g, (c) => `\\${c}`)}"`;
}

/**
 * An env file: `KEY=value` per key in order (the line is the key's position, as the fixtures number
 * them), then the flags as one SERVE_ARGS line, double-quoted as a serve script's env file has it.
 */
export function envText(keys: readonly (readonly [string, string])[], flags: Record<string, string> = {}): string {
  const lines = keys.map(([k, v]) => `${k}=${/^[^\s"'#$\\`]*$/.test(v) ? v : doubleQuoted(v)}`);
  const args = Object.entries(flags)
    .map(([f, v]) => `${f} ${shellWord(v)}`)
    .join(" ");
  if (args !== "") lines.push(`SERVE_ARGS=${doubleQuoted(args)}`);
  return lines.join("\n") + "\n";
}
