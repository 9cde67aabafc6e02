// Reads one rules/ file as validated data. The bundles carry the rules/ files already parsed from
// YAML and validated (build.mjs runs src/rules/pack-check.ts and embeds each file's validated output),
// because composing YAML documents, then validating them, were the hook's largest start-up costs.
// From the source tree (tests) the YAML is read from disk and validated at load. On a validation
// failure the YAML is re-read so the message can name the line.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type * as z from "zod";
import { formatZodIssues, parseYamlWithLines } from "../config/issues.js";
import { packRoot } from "./root.js";

declare const __KVGATE_RULES__: Record<string, unknown> | undefined;
/** True when the embedded files are the validated output of their schemas (build.mjs checked them). */
declare const __KVGATE_RULES_CHECKED__: boolean | undefined;

function embedded(name: string): unknown {
  return typeof __KVGATE_RULES__ === "undefined" ? undefined : __KVGATE_RULES__[name];
}

function rulesFileText(name: string): string {
  return readFileSync(join(packRoot(), "rules", name), "utf8");
}

/** Parses YAML text and validates it; errors name the file and line. */
export function validateYamlText<T>(schema: z.ZodType<T>, text: string, file: string): T {
  const load = parseYamlWithLines(text, file);
  if (load.errors.length > 0) throw new Error(`${file}: ${load.errors.join("; ")}`);
  const r = schema.safeParse(load.value);
  if (!r.success) throw new Error(`${file} is invalid: ${formatZodIssues(r.error, load, file).join("; ")}`);
  return r.data;
}

export function rulesData<T>(schema: z.ZodType<T>, name: string): T {
  const file = `rules/${name}`;
  const value = embedded(name);
  if (value === undefined) return validateYamlText(schema, rulesFileText(name), file);
  if (typeof __KVGATE_RULES_CHECKED__ !== "undefined" && __KVGATE_RULES_CHECKED__) return deepFreeze(value) as T;
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  // Only a broken package gets here; the YAML gives the lines.
  return validateYamlText(schema, rulesFileText(name), file);
}

/** The embedded data is shared by the whole process: frozen, so no caller can change it for another. */
function deepFreeze(value: unknown): unknown {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
