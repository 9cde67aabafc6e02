// Reads kvgate.yaml (or .kvgate.yaml): every problem at once, with its path and line; exit 2.
import { configSchemaWith, type CardLookup, type Config } from "./schema.js";
import { MiB } from "../units/bytes.js";
import { resolvePolicy, type Policy } from "./policy.js";
import { formatZodIssues, parseYamlWithLines } from "./issues.js";
import { GateError } from "../errors.js";

export const CONFIG_NAMES = ["kvgate.yaml", ".kvgate.yaml"] as const;

/**
 * Configs validated before, by what validated them: the CLI's cache of them (src/cli/config-cache.ts),
 * handed in once by the CLI at start; none by default (the Action, tests, the library).
 */
export interface ConfigMemory {
  /** The config `text` validated to under the name `file`, with (`cards`) or without the card table. */
  get(file: string, text: string, cards: boolean): Config | undefined;
  put(file: string, text: string, cards: boolean, config: Config): void;
}

let memory: ConfigMemory | null = null;

/** Where validated configs are kept and looked up from now on (null: nowhere). */
export function rememberConfigsIn(m: ConfigMemory | null): void {
  memory = m;
}

/**
 * Validates a config file's text. `null` text means no config: the defaults alone. `cards` knows the
 * cards rules/cards.yaml names (without it every card must give its total). A text validated before
 * (ConfigMemory) is not parsed again: only a config that validated is remembered, so a broken one is
 * always parsed and reported.
 */
export function parseConfig(text: string | null, file: string, cards?: CardLookup): Config {
  if (text === null) return {};
  const known = memory?.get(file, text, cards !== undefined);
  if (known) return known;
  const config = validateConfig(text, file, cards);
  memory?.put(file, text, cards !== undefined, config);
  return config;
}

function validateConfig(text: string, file: string, cards: CardLookup | undefined): Config {
  const load = parseYamlWithLines(text, file);
  if (load.errors.length > 0) {
    throw new GateError(`${file} is not valid YAML`, { details: load.errors, hint: "fix the YAML syntax at the line shown" });
  }
  if (load.value === null || load.value === undefined) return {};
  const parsed = configSchemaWith(cards).safeParse(load.value);
  if (!parsed.success) {
    const details = formatZodIssues(parsed.error, load, file);
    throw new GateError(`${file} has ${details.length} problem${details.length === 1 ? "" : "s"}`, {
      details,
      hint: "fix each key listed; `kvgate schema` prints the JSON Schema of kvgate.yaml",
    });
  }
  return parsed.data;
}

/** What loadPolicy needs of the rules pack (a RulesPack fits): the defaults and, optionally, the card table. */
interface PolicySource {
  readonly defaults: Config;
  cards?(): { lookup(name: string): { cudaTotalMib: number } | null };
}

/** The card table as the config layer reads it: what CUDA reports for a named card. */
export function cardLookupOf(pack: PolicySource): CardLookup | undefined {
  if (!pack.cards) return undefined;
  // Parsed on the first named card only: most configs give totals, and the hook should not pay for the table.
  return (name) => {
    const known = pack.cards?.().lookup(name);
    return known ? { cuda_total_bytes: known.cudaTotalMib * MiB } : null;
  };
}

/** The policy a config text gives over the pack's defaults (rules/policy.yaml; a RulesPack fits). */
export function loadPolicy(text: string | null, file: string, pack: PolicySource): Policy {
  const cards = cardLookupOf(pack);
  return resolvePolicy(pack.defaults, parseConfig(text, file, cards), cards);
}
