// Reads kvgate.yaml (or .kvgate.yaml): every problem at once, with its path and line; exit 2.
import { ConfigSchema, type Config } from "./schema.js";
import { resolvePolicy, type Policy } from "./policy.js";
import { formatZodIssues, parseYamlWithLines } from "./issues.js";
import { GateError } from "../errors.js";

export const CONFIG_NAMES = ["kvgate.yaml", ".kvgate.yaml"] as const;

/** Validates a config file's text. `null` text means no config: the defaults alone. */
export function parseConfig(text: string | null, file: string): Config {
  if (text === null) return {};
  const load = parseYamlWithLines(text, file);
  if (load.errors.length > 0) {
    throw new GateError(`${file} is not valid YAML`, { details: load.errors, hint: "fix the YAML syntax at the line shown" });
  }
  if (load.value === null || load.value === undefined) return {};
  const parsed = ConfigSchema.safeParse(load.value);
  if (!parsed.success) {
    const details = formatZodIssues(parsed.error, load, file);
    throw new GateError(`${file} has ${details.length} problem${details.length === 1 ? "" : "s"}`, {
      details,
      hint: "fix each key listed; `kvgate schema` prints the JSON Schema of kvgate.yaml",
    });
  }
  return parsed.data;
}

/** The policy a config text gives over the pack's defaults (rules/policy.yaml; a RulesPack fits). */
export function loadPolicy(text: string | null, file: string, pack: { readonly defaults: Config }): Policy {
  return resolvePolicy(pack.defaults, parseConfig(text, file));
}
