// The model catalog (rules/models.yaml): what the KV arithmetic needs from each model's config.json,
// validated with the same zod ModelSpec as kvgate.yaml's `models:`, and the lookup that resolves
// the names services write (`Qwen/Qwen3-8B`, `qwen3-8b`, `/models/Qwen3-8B`) to an entry.
import * as z from "zod";
import { ModelSpec as ModelSpecSchema } from "../config/schema.js";
import { toModelSpec, type ModelSpec } from "../config/policy.js";
import { formatZodIssues, parseYamlWithLines } from "../config/issues.js";
import { rulesData } from "./data.js";

export interface ModelCatalog {
  models: Record<string, ModelSpec>;
}

export const ModelsFile = z.strictObject({ models: z.record(z.string(), ModelSpecSchema) });

/** Parses and validates rules/models.yaml; a broken catalog is an internal error, never an empty one. */
export function loadModelCatalog(text: string, file: string): ModelCatalog {
  const load = parseYamlWithLines(text, file);
  if (load.errors.length > 0) throw new Error(`${file}: ${load.errors.join("; ")}`);
  const r = ModelsFile.safeParse(load.value);
  if (!r.success) throw new Error(`${file} is invalid: ${formatZodIssues(r.error, load, file).join("; ")}`);
  return catalogOf(r.data);
}

function catalogOf(file: z.infer<typeof ModelsFile>): ModelCatalog {
  const models: Record<string, ModelSpec> = {};
  for (const [id, m] of Object.entries(file.models)) models[id] = toModelSpec(id, m);
  return { models };
}

let builtin: ModelCatalog | null = null;

/** The shipped catalog (rules/models.yaml, embedded in the bundles), validated once per process. */
export function builtinModels(): ModelCatalog {
  builtin ??= catalogOf(rulesData(ModelsFile, "models.yaml"));
  return builtin;
}

/** `/models/Qwen3-8B/` → `Qwen3-8B`; `Qwen/Qwen3-8B` → `Qwen3-8B`. */
function lastPart(name: string): string {
  const parts = name.replace(/[\\/]+$/, "").split(/[\\/]/);
  return parts[parts.length - 1] ?? name;
}

/**
 * The model a service names. kvgate.yaml's models win over the catalog at every step; the steps, in
 * order: exact id; id ignoring case; an alias (served names) ignoring case; then the last part of a
 * local path or repo id against each entry's id and aliases' last parts, ignoring case.
 */
export function lookupModel(catalog: ModelCatalog, policyModels: Record<string, ModelSpec>, name: string | null): ModelSpec | null {
  if (name === null) return null;
  const wanted = name.trim();
  if (wanted === "") return null;
  const sources = [policyModels, catalog.models];
  for (const src of sources) {
    const hit = src[wanted];
    if (hit) return hit;
  }
  const lower = wanted.toLowerCase();
  for (const src of sources) {
    for (const m of Object.values(src)) if (m.id.toLowerCase() === lower) return m;
  }
  for (const src of sources) {
    for (const m of Object.values(src)) if (m.aliases.some((a) => a.toLowerCase() === lower)) return m;
  }
  const tail = lastPart(wanted).toLowerCase();
  for (const src of sources) {
    for (const m of Object.values(src)) {
      if (lastPart(m.id).toLowerCase() === tail) return m;
      if (m.aliases.some((a) => lastPart(a).toLowerCase() === tail)) return m;
    }
  }
  return null;
}
