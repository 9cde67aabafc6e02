// Where a seat's model facts come from (docs/vllm-sizing.md#model-facts), first match wins:
//   1. `models:` in kvgate.yaml (the operator's own numbers), merged field by field over the catalog's
//      entry for the same model, so a user who corrects the weights keeps the catalog's layer kinds and
//      measured overhead (explain names the fields overridden);
//   2. a config.json committed in the repository: the one the service names with MODEL_CONFIG, else
//      one under `models/` whose `_name_or_path` or folder (`models/<org>/<name>/config.json`) is the
//      service's model; its weights from `model.safetensors.index.json` beside it, else estimated
//      from the config and its quantization_config;
//   3. the catalog (rules/models.yaml).
// A service's KV_BYTES_PER_TOKEN / WEIGHTS_MIB beat all three (src/kv/seat.ts applies them).
// A config.json that is malformed, or that MODEL_CONFIG names but the repository does not hold, is a
// problem the rules report at its file: the seat is then not sized from a guess.
import type { ModelSpec, Policy, UserModel } from "../config/policy.js";
import type { FleetState, ModelFile, Service } from "../model/types.js";
import type { RulesPack } from "../rules/pack.js";
import { lookupModel, lookupNamed } from "../rules/models.js";
import { bytesOf } from "../units/bytes.js";
import { factsFromSpec, type ModelFacts } from "./facts.js";
import { readHfConfig, type ConfigProblem } from "./hf-config.js";
import { estimateWeights, weightsFromIndex } from "./weights.js";

export interface ModelSource {
  facts: ModelFacts;
  /** The facts as a catalog entry, for the rules that read the catalog's shape (context-max, yarn). */
  spec: ModelSpec;
  from: "kvgate.yaml" | "config.json" | "catalog";
  /** The config.json path when from config.json. */
  file: string | null;
  /** How the weights were found, for explain: `metadata.total_size …` or an estimate's formula. */
  weightsVia: string;
  /** A kvgate.yaml entry merged over the catalog's: the fields it overrode (explain names them). */
  overridden?: string[];
}

export type SourceRead = { ok: true; source: ModelSource } | { ok: false; problem: ConfigProblem } | { ok: true; source: null };

const CONFIG = /(^|\/)config\.json$/;

function dirOf(path: string): string {
  const i = path.lastIndexOf("/");
  return i < 0 ? "" : path.slice(0, i + 1);
}

function stripSlashes(s: string): string {
  return s
    .trim()
    .replace(/^\.?\/+/, "")
    .replace(/\/+$/, "");
}

/** `models/google/gemma-3-27b-it/config.json` → `google/gemma-3-27b-it`; `models/x/config.json` → `x`. */
export function folderModelId(path: string): string | null {
  const m = /^models\/(.+)\/config\.json$/.exec(path);
  return m ? (m[1] as string) : null;
}

// Each committed file is parsed once per load, however many seats and rules ask (keyed by the file object).
const names = new WeakMap<ModelFile, string | null>();
const reads = new WeakMap<ModelFile, SourceRead>();

function nameOrPathOf(file: ModelFile): string | null {
  if (!names.has(file)) names.set(file, nameOrPath(file.text));
  return names.get(file) ?? null;
}

function nameOrPath(text: string | null): string | null {
  if (text === null) return null;
  try {
    const j = JSON.parse(text) as unknown;
    if (typeof j === "object" && j !== null && typeof (j as Record<string, unknown>)._name_or_path === "string")
      return ((j as Record<string, unknown>)._name_or_path as string).trim();
  } catch {
    // A malformed file is reported when a service uses it; matching only needs the folder then.
  }
  return null;
}

/** The service's model written as a hub id or a local path (`/models/google/gemma-3-27b-it`) names `id`. */
function namesModel(model: string, id: string): boolean {
  const m = stripSlashes(model).toLowerCase();
  const i = stripSlashes(id).toLowerCase();
  if (i === "") return false;
  return m === i || m.endsWith(`/${i}`);
}

/** The committed config.json for a service: MODEL_CONFIG's path, else a match under models/. */
function configPathFor(service: Service, state: Pick<FleetState, "modelFiles">): { path: string | null; named: boolean } {
  const named = service.settings.model_config?.value;
  if (typeof named === "string" && named.trim() !== "") return { path: stripSlashes(named), named: true };
  if (service.model === null) return { path: null, named: false };
  const files = state.modelFiles ?? {};
  for (const [path, f] of Object.entries(files)) {
    if (!CONFIG.test(path) || !path.startsWith("models/")) continue;
    const byFolder = folderModelId(path);
    const byName = nameOrPathOf(f);
    if ((byFolder && namesModel(service.model, byFolder)) || (byName && namesModel(service.model, byName))) return { path, named: false };
  }
  return { path: null, named: false };
}

function specOf(f: ModelFacts, weights: number): ModelSpec {
  const yarn = f.rope.find((r) => r.type === "yarn" && r.factor !== null && r.originalMax !== null);
  const spec: ModelSpec = {
    id: f.id,
    layers: f.layers,
    max_context: f.maxLen?.value ?? 2048,
    weights_bytes: weights,
    dtype: f.dtype,
    aliases: [],
  };
  if (f.kvHeads !== null) spec.kv_heads = f.kvHeads;
  if (f.headDim !== null) spec.head_dim = f.headDim;
  if (f.hiddenSize !== null) spec.hidden_size = f.hiddenSize;
  if (f.attentionHeads !== null) spec.attention_heads = f.attentionHeads;
  if (f.mla) {
    spec.kv_lora_rank = f.mla.kvLoraRank;
    spec.qk_rope_head_dim = f.mla.qkRopeHeadDim;
    if (f.mla.qkNopeHeadDim !== null) spec.qk_nope_head_dim = f.mla.qkNopeHeadDim;
  }
  if (yarn) spec.yarn = { factor: yarn.factor as number, original_max_position_embeddings: yarn.originalMax as number };
  return spec;
}

function fromConfig(path: string, state: Pick<FleetState, "modelFiles">, named: boolean): SourceRead {
  const file = (state.modelFiles ?? {})[path];
  if (!file) return readConfig(path, state, named);
  const hit = reads.get(file);
  if (hit) return hit;
  const read = readConfig(path, state, named);
  reads.set(file, read);
  return read;
}

function readConfig(path: string, state: Pick<FleetState, "modelFiles">, named: boolean): SourceRead {
  const files = state.modelFiles ?? {};
  const file = files[path];
  const fix = "commit the model's config.json unchanged from the model repository";
  if (!file) {
    return {
      ok: false,
      problem: {
        file: path,
        field: "MODEL_CONFIG",
        message:
          `MODEL_CONFIG names ${path}, which the repository does not ` +
          `hold${named && !CONFIG.test(path) ? " (kvgate reads files named config.json)" : ""}`,
        fix: "commit the model's config.json at that path, or fix MODEL_CONFIG",
      },
    };
  }
  if (file.problem !== null || file.text === null)
    return { ok: false, problem: { file: path, field: "(file)", message: `${path}: ${file.problem ?? "unreadable"}`, fix } };
  const read = readHfConfig(file.text, path);
  if (!read.ok) return read;
  const facts = read.facts;
  const index = files[`${dirOf(path)}model.safetensors.index.json`];
  let weights;
  if (index) {
    weights =
      index.text !== null
        ? weightsFromIndex(index.text, `${dirOf(path)}model.safetensors.index.json`)
        : {
            ok: false as const,
            problem: {
              file: `${dirOf(path)}model.safetensors.index.json`,
              field: "(file)",
              message: `${dirOf(path)}model.safetensors.index.json: ${index.problem ?? "unreadable"}`,
              fix,
            },
          };
  } else {
    weights = estimateWeights(JSON.parse(file.text) as Record<string, unknown>, facts);
  }
  if (!weights.ok) return weights;
  const withWeights: ModelFacts = {
    ...facts,
    weightsBytes: weights.bytes,
    tokenizerMaxLength: tokenizerMaxLengthOf(files[`${dirOf(path)}tokenizer_config.json`]),
  };
  return {
    ok: true,
    source: { facts: withWeights, spec: specOf(withWeights, weights.bytes), from: "config.json", file: path, weightsVia: weights.formula },
  };
}

/**
 * model_max_length of the tokenizer_config.json beside a config.json (vLLM's try_get_tokenizer_config),
 * when it is a usable length; tokenizers without a limit write 1e30, which caps nothing.
 */
function tokenizerMaxLengthOf(file: ModelFile | undefined): number | null {
  if (!file?.text) return null;
  try {
    const v = (JSON.parse(file.text) as Record<string, unknown>).model_max_length;
    return typeof v === "number" && Number.isSafeInteger(v) && v > 0 ? v : null;
  } catch {
    // The tokenizer's config does not size the KV: an unreadable one caps nothing, as in vLLM (None).
    return null;
  }
}

/** kvgate.yaml's fields over the catalog's entry, field by field; the figures in bytes as the catalog holds them. */
function merged(user: UserModel, cat: ModelSpec | null): { spec: ModelSpec; overridden: string[] } | { missing: string[] } {
  const { weights, aliases, dtype, ...rest } = user.input;
  const out: Record<string, unknown> = { ...(cat ?? {}) };
  for (const [k, v] of Object.entries(rest)) if (v !== undefined) out[k] = v;
  if (weights !== undefined) out.weights_bytes = bytesOf(weights);
  if (dtype !== undefined) out.dtype = dtype;
  out.id = cat?.id ?? user.id;
  out.aliases = [...new Set([...(cat?.aliases ?? []), ...(aliases ?? [])])];
  out.dtype ??= "bfloat16";
  const missing = ["layers", "max_context", "weights_bytes"].filter((k) => out[k] === undefined);
  if (missing.length > 0) return { missing: missing.map((k) => (k === "weights_bytes" ? "weights" : k)) };
  return { spec: out as unknown as ModelSpec, overridden: cat ? user.fields.filter((f) => f !== "aliases" && f !== "note") : [] };
}

/** The model facts of a service, by the precedence above; `source: null` when no source knows the model. */
export function modelSourceOf(service: Service, state: Pick<FleetState, "modelFiles">, policy: Policy, pack: RulesPack): SourceRead {
  const own = lookupNamed([policy.models], service.model);
  if (own) {
    const cat = lookupModel(pack.models(), {}, own.id) ?? lookupModel(pack.models(), {}, service.model);
    const m = merged(own, cat);
    if ("missing" in m)
      return {
        ok: false,
        problem: {
          file: "kvgate.yaml",
          field: `models.${own.id}.${m.missing[0]}`,
          message: `kvgate.yaml models.${own.id} lacks ${m.missing.join(", ")}, and rules/models.yaml has no ${own.id} to take them from`,
          fix:
            `add ${m.missing.join(", ")} to models.${own.id} (num_hidden_layers, ` +
            `max_position_embeddings and the weights' size from the model's config.json)`,
        },
      };
    return {
      ok: true,
      source: {
        facts: factsFromSpec(m.spec),
        spec: m.spec,
        from: "kvgate.yaml",
        file: null,
        weightsVia: user(own, "weights") ? "weights in kvgate.yaml" : "weights in rules/models.yaml",
        overridden: m.overridden,
      },
    };
  }
  const cfg = configPathFor(service, state);
  if (cfg.path !== null) return fromConfig(cfg.path, state, cfg.named);
  const cat = lookupModel(pack.models(), {}, service.model);
  if (cat)
    return {
      ok: true,
      source: { facts: factsFromSpec(cat), spec: cat, from: "catalog", file: null, weightsVia: "weights in rules/models.yaml" },
    };
  return { ok: true, source: null };
}

const user = (m: UserModel, field: string): boolean => m.fields.includes(field);
