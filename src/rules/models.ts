// The model catalog (rules/models.yaml): what the KV arithmetic needs from each model's config.json,
// validated with the same zod ModelSpec as kvgate.yaml's `models:`, and the lookup that resolves
// the names services write (`Qwen/Qwen3-8B`, `qwen3-8b`, `/models/Qwen3-8B`) to an entry.
import * as z from "zod";
import { modelSpecSchema } from "../config/schema.js";
import { toModelSpec, type ModelSpec } from "../config/policy.js";
import { formatZodIssues, parseYamlWithLines } from "../config/issues.js";
import { rulesData } from "./data.js";

export interface ModelCatalog {
  models: Record<string, ModelSpec>;
}

const buildModelsFile = () => z.strictObject({ models: z.record(z.string(), modelSpecSchema()) });
let models: ReturnType<typeof buildModelsFile> | null = null;

/** rules/models.yaml's schema, built on first use (it holds kvgate.yaml's model schema: src/config/schema.ts). */
export function modelsFile(): ReturnType<typeof buildModelsFile> {
  models ??= buildModelsFile();
  return models;
}

/** Parses and validates rules/models.yaml; a broken catalog is an internal error, never an empty one. */
export function loadModelCatalog(text: string, file: string): ModelCatalog {
  const load = parseYamlWithLines(text, file);
  if (load.errors.length > 0) throw new Error(`${file}: ${load.errors.join("; ")}`);
  const r = modelsFile().safeParse(load.value);
  if (!r.success) throw new Error(`${file} is invalid: ${formatZodIssues(r.error, load, file).join("; ")}`);
  return catalogOf(r.data);
}

function catalogOf(file: z.infer<ReturnType<typeof buildModelsFile>>): ModelCatalog {
  const models: Record<string, ModelSpec> = {};
  for (const [id, m] of Object.entries(file.models)) models[id] = toModelSpec(id, m);
  return { models };
}

let builtin: ModelCatalog | null = null;

/** The shipped catalog (rules/models.yaml, embedded in the bundles), validated once per process. */
export function builtinModels(): ModelCatalog {
  builtin ??= catalogOf(rulesData(modelsFile, "models.yaml"));
  return builtin;
}

/** `/models/Qwen3-8B/` → `Qwen3-8B`; `Qwen/Qwen3-8B` → `Qwen3-8B`. */
function lastPart(name: string): string {
  const parts = name.replace(/[\\/]+$/, "").split(/[\\/]/);
  return parts[parts.length - 1] ?? name;
}

/** What a name lookup needs of an entry. */
interface Named {
  id: string;
  aliases: string[];
}

/** One source's names, each step's key to its first entry in the source's order. */
interface NameIndex<T extends Named> {
  exact: Map<string, T>;
  lowerId: Map<string, T>;
  lowerAlias: Map<string, T>;
  tail: Map<string, T>;
}

/** Built once per source: every seat of every check looks its model up (a pass over the catalog each). */
const indexes = new WeakMap<Record<string, Named>, NameIndex<Named>>();

function indexOf<T extends Named>(src: Record<string, T>): NameIndex<T> {
  let idx = indexes.get(src) as NameIndex<T> | undefined;
  if (idx) return idx;
  idx = { exact: new Map(), lowerId: new Map(), lowerAlias: new Map(), tail: new Map() };
  const first = (map: Map<string, T>, key: string, m: T): void => {
    if (!map.has(key)) map.set(key, m);
  };
  for (const [key, m] of Object.entries(src)) {
    idx.exact.set(key, m);
    first(idx.lowerId, m.id.toLowerCase(), m);
    for (const a of m.aliases) first(idx.lowerAlias, a.toLowerCase(), m);
    first(idx.tail, lastPart(m.id).toLowerCase(), m);
    for (const a of m.aliases) first(idx.tail, lastPart(a).toLowerCase(), m);
  }
  indexes.set(src, idx);
  return idx;
}

/**
 * The model a service names. kvgate.yaml's models win over the catalog at every step; the steps, in
 * order: exact id; id ignoring case; an alias (served names) ignoring case; then the last part of a
 * local path or repo id against each entry's id and aliases' last parts, ignoring case.
 */
export function lookupModel(catalog: ModelCatalog, policyModels: Record<string, ModelSpec>, name: string | null): ModelSpec | null {
  return lookupNamed([policyModels, catalog.models], name);
}

/** The same lookup over any named entries (kvgate.yaml's partial `models:` entries), first source first at every step. */
export function lookupNamed<T extends Named>(sourcesIn: Record<string, T>[], name: string | null): T | null {
  if (name === null) return null;
  const wanted = name.trim();
  if (wanted === "") return null;
  const sources = sourcesIn.map((src) => indexOf(src));
  const lower = wanted.toLowerCase();
  const tail = lastPart(wanted).toLowerCase();
  const steps: [keyof NameIndex<T>, string][] = [
    ["exact", wanted],
    ["lowerId", lower],
    ["lowerAlias", lower],
    ["tail", tail],
  ];
  for (const [step, key] of steps) {
    for (const src of sources) {
      const hit = src[step].get(key);
      if (hit) return hit;
    }
  }
  return null;
}
