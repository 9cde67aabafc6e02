// Reads one rules/ file as validated data. The bundles carry the rules/ files already parsed from
// YAML and validated (build.mjs runs src/rules/pack-check.ts and embeds each file's validated output),
// because composing YAML documents, then validating them, were the hook's largest start-up costs.
// Run from the source tree (vitest), the files are embedded parsed but not validated
// (vitest.config.ts), and validated here at load. No file is read here: below the engine only git/
// and load/ touch the filesystem (test/architecture).
import type * as z from "zod";
import { formatZodIssues, parseYamlWithLines } from "../config/issues.js";

declare const __KVGATE_RULES__: Record<string, unknown> | undefined;
/** True when the embedded files are the validated output of their schemas (build.mjs checked them). */
declare const __KVGATE_RULES_CHECKED__: boolean | undefined;

function embedded(name: string): unknown {
  return typeof __KVGATE_RULES__ === "undefined" ? undefined : __KVGATE_RULES__[name];
}

/** Parses YAML text and validates it; errors name the file and line. */
export function validateYamlText<T>(schema: z.ZodType<T>, text: string, file: string): T {
  const load = parseYamlWithLines(text, file);
  if (load.errors.length > 0) throw new Error(`${file}: ${load.errors.join("; ")}`);
  const r = schema.safeParse(load.value);
  if (!r.success) throw new Error(`${file} is invalid: ${formatZodIssues(r.error, load, file).join("; ")}`);
  return r.data;
}

/** `schema` may be handed as the function that builds it: it is then built only where it validates (from sources). */
export function rulesData<T>(schema: z.ZodType<T> | (() => z.ZodType<T>), name: string): T {
  const file = `rules/${name}`;
  const value = embedded(name);
  if (value === undefined) throw new Error(`${file} is not embedded in this build: build kvgate with build.mjs (npm run bundle)`);
  if (typeof __KVGATE_RULES_CHECKED__ !== "undefined" && __KVGATE_RULES_CHECKED__) return deepFreeze(value) as T;
  const r = (typeof schema === "function" ? schema() : schema).safeParse(value);
  if (r.success) return r.data;
  // Only a broken source tree gets here (the build validates with lines: src/rules/pack-check.ts).
  throw new Error(`${file} is invalid: ${r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
}

/** The embedded data is shared by the whole process: frozen, so no caller can change it for another. */
function deepFreeze(value: unknown): unknown {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
