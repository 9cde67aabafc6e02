// A model's Hugging Face config.json read as vLLM reads it (docs/vllm-sizing.md#model-facts):
// - the text config of a multimodal model: vllm/transformers_utils/config.py get_hf_text_config
//   (config.get_text_config(): `text_config`, which must carry num_attention_heads);
// - KV heads: vllm/config/model.py get_total_num_kv_heads (n_head_kv, num_kv_heads,
//   num_key_value_heads, multi_query_group_num, else num_attention_heads; multi_query → 1);
// - head size: get_head_size (MLA: kv_lora_rank + qk_rope_head_dim; else head_dim when not null,
//   else hidden_size_per_head, else hidden_size // num_attention_heads — the 25 % trap of
//   Mistral-Small-3.1, head_dim 128 ≠ 5120 / 32);
// - MLA: is_deepseek_mla (deepseek_v2/v3/v32, kimi_k2, ... with kv_lora_rank);
// - the attention kind of every layer, as the model files build their Attention layers
//   (layer_types; gemma3 sliding_window_pattern; gpt_oss alternate layers; llama4 no_rope_layers;
//   qwen3_next full_attention_interval; a plain sliding_window on every layer);
// - the max-length keys of _get_and_verify_max_len and rope_scaling / rope_parameters;
// - quantization_config as ModelConfig._parse_quant_hf_config normalises it.
// A field the published config leaves out is filled with the transformers config class default,
// named in `defaulted`, because that is what vLLM gets from AutoConfig.
// Never throws: a malformed or unsupported config is a ConfigProblem naming the file, the field
// and what to do.
import type { LayerKind, LinearState, ModelFacts, Quantization, RopeScaling } from "./facts.js";

export interface ConfigProblem {
  file: string;
  field: string;
  message: string;
  fix: string;
}

export type ConfigRead = { ok: true; facts: ModelFacts } | { ok: false; problem: ConfigProblem };

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function posInt(v: unknown): number | null {
  return typeof v === "number" && Number.isSafeInteger(v) && v > 0 ? v : null;
}

/** vllm/config/model.py is_deepseek_mla: these model types use MLA when kv_lora_rank is set. */
const MLA_MODEL_TYPES = new Set([
  "deepseek_v2",
  "deepseek_v3",
  "deepseek_v32",
  "deepseek_mtp",
  "kimi_k2",
  "kimi_linear",
  "longcat_flash",
  "pangu_ultra_moe",
  "pangu_ultra_moe_mtp",
]);

/** _get_and_verify_max_len's possible_keys, in its order; the smallest present wins. */
const MAX_LEN_KEYS = [
  "max_position_embeddings",
  "n_positions",
  "max_seq_len",
  "seq_length",
  "model_max_length",
  "max_target_positions",
  "max_sequence_length",
  "max_seq_length",
  "seq_len",
];

/**
 * transformers config class defaults for fields published configs leave out, where they change the
 * KV: Gemma3TextConfig (max_position_embeddings 131072, sliding_window 4096, sliding_window_pattern 6,
 * head_dim 256, num_key_value_heads 4, vocab_size 262208; models/gemma3/configuration_gemma3.py), Gemma2Config
 * (sliding_window 4096), Llama4TextConfig (no_rope_layer_interval 4, attention_chunk_size 8192),
 * Qwen3NextConfig (full_attention_interval 4), GptOssConfig (sliding_window 128).
 */
const CLASS_DEFAULTS: Record<string, Json> = {
  gemma3_text: {
    max_position_embeddings: 131072,
    sliding_window: 4096,
    sliding_window_pattern: 6,
    head_dim: 256,
    num_key_value_heads: 4,
    vocab_size: 262208,
  },
  gemma2: { sliding_window: 4096 },
  llama4_text: { no_rope_layer_interval: 4, attention_chunk_size: 8192 },
  qwen3_next: { full_attention_interval: 4 },
  gpt_oss: { sliding_window: 128 },
};

/** Layer types vLLM's hybrid models name in layer_types, mapped to the KV spec vLLM gives them. */
const LAYER_TYPE_KIND: Record<string, LayerKind> = {
  full_attention: "full",
  attention: "full",
  sliding_attention: "sliding",
  chunked_attention: "chunked",
  linear_attention: "mamba",
};

class Problem extends Error {
  constructor(
    readonly field: string,
    message: string,
    readonly fix: string,
  ) {
    super(message);
  }
}

const SET_BYTES = "set KV_BYTES_PER_TOKEN (and WEIGHTS_MIB) for this service, or add the model under `models:` in kvgate.yaml";

/** Reads config.json text. `file` names it in problems. */
export function readHfConfig(text: string, file: string): ConfigRead {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return {
      ok: false,
      problem: {
        file,
        field: "(file)",
        message: `${file} is not valid JSON (${(e as Error).message})`,
        fix: "commit the model's config.json unchanged from the model repository",
      },
    };
  }
  return factsFromHfJson(json, file);
}

export function factsFromHfJson(json: unknown, file: string): ConfigRead {
  try {
    return { ok: true, facts: read(json, file) };
  } catch (e) {
    if (e instanceof Problem) return { ok: false, problem: { file, field: e.field, message: `${file}: ${e.message}`, fix: e.fix } };
    throw e;
  }
}

/** get_hf_text_config: the text config of a multimodal model, else the config itself. */
export function textConfigOf(top: Json): { text: Json; path: string } {
  const thinker = top.thinker_config;
  if (isObject(thinker)) {
    if (isObject(thinker.text_config)) return { text: thinker.text_config, path: "thinker_config.text_config" };
    return { text: thinker, path: "thinker_config" };
  }
  const tc = top.text_config;
  if (tc === undefined || tc === null) return { text: top, path: "" };
  if (!isObject(tc))
    throw new Problem("text_config", "text_config is not an object", "commit the model's config.json unchanged from the model repository");
  // Multimodal configs put dtype and quantization_config at the top; the text fields in text_config.
  return { text: tc, path: "text_config" };
}

function read(json: unknown, file: string): ModelFacts {
  if (!isObject(json))
    throw new Problem("(file)", "is not a JSON object", "commit the model's config.json unchanged from the model repository");
  const top = json;
  const { text: raw, path } = textConfigOf(top);
  const at = (k: string) => (path ? `${path}.${k}` : k);
  const modelType = typeof raw.model_type === "string" ? raw.model_type : typeof top.model_type === "string" ? top.model_type : null;
  const defaults = (modelType && CLASS_DEFAULTS[modelType]) || (modelType === "gemma3" ? CLASS_DEFAULTS.gemma3_text : undefined) || {};
  const defaulted: string[] = [];
  const get = (k: string): unknown => {
    if (raw[k] !== undefined && raw[k] !== null) return raw[k];
    if (defaults[k] !== undefined) {
      defaulted.push(`${at(k)}=${JSON.stringify(defaults[k])} (${modelType} default)`);
      return defaults[k];
    }
    return undefined;
  };

  unsupportedHybrid(raw, at);

  const layers = posInt(raw.num_hidden_layers);
  if (layers === null)
    throw new Problem(at("num_hidden_layers"), `${at("num_hidden_layers")} is missing or not a positive integer`, SET_BYTES);
  const heads = posInt(raw.num_attention_heads);
  if (heads === null) {
    const field = at("num_attention_heads");
    throw new Problem(
      field,
      path
        ? `${field} is missing: vLLM refuses a text config without num_attention_heads (get_hf_text_config)`
        : `${field} is missing or not a positive integer`,
      SET_BYTES,
    );
  }

  const mlaRank = raw.kv_lora_rank;
  const isMla = modelType !== null && MLA_MODEL_TYPES.has(modelType) && mlaRank !== undefined && mlaRank !== null;
  let mla: ModelFacts["mla"] = null;
  if (isMla) {
    const rank = posInt(mlaRank);
    const rope = raw.qk_rope_head_dim === undefined ? 0 : raw.qk_rope_head_dim;
    if (rank === null || typeof rope !== "number" || !Number.isSafeInteger(rope) || rope < 0) {
      throw new Problem(at("kv_lora_rank"), `${at("kv_lora_rank")} / ${at("qk_rope_head_dim")} are not whole numbers`, SET_BYTES);
    }
    mla = {
      kvLoraRank: rank,
      qkRopeHeadDim: rope,
      qkNopeHeadDim: posInt(raw.qk_nope_head_dim),
      sparse: raw.index_topk !== undefined && raw.index_topk !== null,
    };
  }

  const kvHeads = mla ? heads : kvHeadsOf(raw, heads, at, get);
  const hidden = posInt(raw.hidden_size);
  const headDim = mla ? mla.kvLoraRank + mla.qkRopeHeadDim : headDimOf(raw, heads, hidden, at, get);

  const slidingWindow = slidingWindowOf(raw, get, at);
  const layerKinds = layerKindsOf(raw, modelType, layers, slidingWindow, get, at);
  const chunk = layerKinds.includes("chunked") ? posInt(get("attention_chunk_size")) : null;
  if (layerKinds.includes("chunked") && chunk === null)
    throw new Problem(at("attention_chunk_size"), `${at("attention_chunk_size")} is missing for chunked-attention layers`, SET_BYTES);
  if (layerKinds.includes("sliding") && slidingWindow === null)
    throw new Problem(at("sliding_window"), `${at("sliding_window")} is missing for sliding-window layers`, SET_BYTES);
  const linearState = layerKinds.includes("mamba") ? linearStateOf(raw, at) : null;

  const dtype = dtypeOf(top, raw);
  const quantization = quantizationOf(top, raw);
  return {
    id: file,
    source: "config.json",
    modelType,
    layers,
    attentionHeads: heads,
    kvHeads,
    headDim,
    hiddenSize: hidden,
    intermediateSize: posInt(raw.intermediate_size),
    vocabSize: posInt(get("vocab_size")) ?? posInt(top.vocab_size),
    tieWordEmbeddings: raw.tie_word_embeddings === true || (raw.tie_word_embeddings === undefined && top.tie_word_embeddings === true),
    dtype,
    mla,
    layerKinds,
    slidingWindow: layerKinds.includes("sliding") ? slidingWindow : null,
    attentionChunkSize: chunk,
    linearState,
    maxLen: maxLenOf(raw, get, at),
    modelMaxLength: posInt(raw.model_max_length),
    tokenizerMaxLength: null,
    originalMaxPositionEmbeddings: posInt(raw.original_max_position_embeddings),
    rope: ropeOf(raw, at),
    experts: expertsOf(raw),
    quantization,
    weightsBytes: null,
    overheadBytes: null,
    defaulted,
  };
}

/** Mamba/SSM hybrids vLLM sizes with model-specific state shapes kvgate does not model yet. */
function unsupportedHybrid(raw: Json, at: (k: string) => string): void {
  for (const k of ["layers_block_type", "hybrid_override_pattern", "attn_type_list", "block_configs"]) {
    if (raw[k] !== undefined && raw[k] !== null) {
      throw new Problem(
        at(k),
        `${at(k)}: this model mixes attention with Mamba/state-space blocks whose state kvgate cannot size yet`,
        SET_BYTES,
      );
    }
  }
}

function kvHeadsOf(raw: Json, heads: number, at: (k: string) => string, get: (k: string) => unknown): number {
  if (raw.multi_query === true && raw.new_decoder_architecture !== true) return 1;
  for (const k of ["n_head_kv", "num_kv_heads", "num_key_value_heads", "multi_query_group_num"]) {
    const v = k === "num_key_value_heads" ? get(k) : raw[k];
    if (v === undefined || v === null) continue;
    const n = posInt(v);
    if (n === null) throw new Problem(at(k), `${at(k)} is not a positive integer`, SET_BYTES);
    return n;
  }
  return heads;
}

function headDimOf(raw: Json, heads: number, hidden: number | null, at: (k: string) => string, get: (k: string) => unknown): number {
  for (const k of ["head_dim", "hidden_size_per_head"]) {
    const v = k === "head_dim" ? get(k) : raw[k];
    if (v === undefined || v === null) continue;
    const n = posInt(v);
    if (n === null) throw new Problem(at(k), `${at(k)} is not a positive integer`, SET_BYTES);
    return n;
  }
  if (hidden === null)
    throw new Problem(
      at("hidden_size"),
      `neither ${at("head_dim")} nor ${at("hidden_size")} is given, so the head size is unknown`,
      SET_BYTES,
    );
  return Math.floor(hidden / heads);
}

/** Qwen2/Qwen3 publish sliding_window with use_sliding_window false: transformers then drops it. */
function slidingWindowOf(raw: Json, get: (k: string) => unknown, at: (k: string) => string): number | null {
  if (raw.use_sliding_window === false) return null;
  const v = get("sliding_window");
  if (v === undefined || v === null) return null;
  const n = posInt(v);
  if (n === null) throw new Problem(at("sliding_window"), `${at("sliding_window")} is not a positive integer`, SET_BYTES);
  return n;
}

function layerKindsOf(
  raw: Json,
  modelType: string | null,
  layers: number,
  sliding: number | null,
  get: (k: string) => unknown,
  at: (k: string) => string,
): LayerKind[] {
  const lt = raw.layer_types;
  if (lt !== undefined && lt !== null) {
    if (!Array.isArray(lt)) throw new Problem(at("layer_types"), `${at("layer_types")} is not a list`, SET_BYTES);
    if (lt.length !== layers)
      throw new Problem(at("layer_types"), `${at("layer_types")} lists ${lt.length} layers but num_hidden_layers is ${layers}`, SET_BYTES);
    return lt.map((t, i) => {
      const kind = typeof t === "string" ? LAYER_TYPE_KIND[t] : undefined;
      if (!kind)
        throw new Problem(
          `${at("layer_types")}[${i}]`,
          `${at("layer_types")}[${i}] is ${JSON.stringify(t)}, a layer type kvgate cannot size`,
          SET_BYTES,
        );
      return kind;
    });
  }
  const idx = Array.from({ length: layers }, (_, i) => i);
  switch (modelType) {
    case "gemma3":
    case "gemma3_text": {
      // transformers Gemma3TextConfig: sliding unless (i + 1) % sliding_window_pattern == 0.
      const p = posInt(get("sliding_window_pattern"));
      if (p === null)
        throw new Problem(at("sliding_window_pattern"), `${at("sliding_window_pattern")} is not a positive integer`, SET_BYTES);
      return idx.map((i) => ((i + 1) % p === 0 ? "full" : "sliding"));
    }
    case "gemma2":
    case "gpt_oss":
      // Even layers slide (Gemma2Config / GptOssConfig layer_types; vllm gpt_oss.py layer_idx % 2 == 0).
      return idx.map((i) => (i % 2 === 0 ? "sliding" : "full"));
    case "llama4":
    case "llama4_text": {
      if (get("attention_chunk_size") === undefined) return idx.map(() => "full");
      // vllm llama4.py: a NoPE layer (no_rope_layers[i] == 0) is global; the others are chunked local.
      // transformers Llama4TextConfig: no_rope_layers defaults to int((i + 1) % interval != 0).
      const nr = raw.no_rope_layers;
      if (Array.isArray(nr) && nr.length > 0) {
        if (nr.length !== layers)
          throw new Problem(
            at("no_rope_layers"),
            `${at("no_rope_layers")} lists ${nr.length} layers but num_hidden_layers is ${layers}`,
            SET_BYTES,
          );
        return nr.map((v) => (v === 0 ? "full" : "chunked"));
      }
      const interval = posInt(get("no_rope_layer_interval"));
      if (interval === null)
        throw new Problem(at("no_rope_layer_interval"), `${at("no_rope_layer_interval")} is not a positive integer`, SET_BYTES);
      return idx.map((i) => ((i + 1) % interval === 0 ? "full" : "chunked"));
    }
    case "qwen3_next": {
      const interval = posInt(get("full_attention_interval"));
      if (interval === null)
        throw new Problem(at("full_attention_interval"), `${at("full_attention_interval")} is not a positive integer`, SET_BYTES);
      return idx.map((i) => ((i + 1) % interval === 0 ? "full" : "mamba"));
    }
    default:
      if (sliding === null) return idx.map(() => "full");
      // Qwen2-family configs slide only from max_window_layers on (transformers Qwen2Config layer_types).
      if (typeof raw.max_window_layers === "number") {
        const from = raw.max_window_layers;
        return idx.map((i) => (i >= from ? "sliding" : "full"));
      }
      // Mistral-7B-v0.1 and its kin: every layer slides.
      return idx.map(() => "sliding");
  }
}

function linearStateOf(raw: Json, at: (k: string) => string): LinearState {
  const need = (k: string): number => {
    const n = posInt(raw[k]);
    if (n === null)
      throw new Problem(at(k), `${at(k)} is missing or not a positive integer: the linear-attention state cannot be sized`, SET_BYTES);
    return n;
  };
  return {
    numKeyHeads: need("linear_num_key_heads"),
    numValueHeads: need("linear_num_value_heads"),
    keyHeadDim: need("linear_key_head_dim"),
    valueHeadDim: need("linear_value_head_dim"),
    convKernel: need("linear_conv_kernel_dim"),
  };
}

function maxLenOf(raw: Json, get: (k: string) => unknown, at: (k: string) => string): ModelFacts["maxLen"] {
  let best: { value: number; key: string } | null = null;
  for (const k of MAX_LEN_KEYS) {
    const v = k === "max_position_embeddings" ? get(k) : raw[k];
    if (v === undefined || v === null) continue;
    if (typeof v !== "number" || !(v > 0)) throw new Problem(at(k), `${at(k)} is not a positive number`, SET_BYTES);
    if (best === null || v < best.value) best = { value: v, key: k };
  }
  // Command-R / Cohere: model_max_length replaces the smallest key (vLLM does the same).
  const mml = raw.model_max_length;
  if (typeof mml === "number" && mml > 0) best = { value: mml, key: "model_max_length" };
  return best;
}

/** rope_scaling (transformers v4) or rope_parameters (v5; possibly one entry per layer type). */
function ropeOf(raw: Json, at: (k: string) => string): RopeScaling[] {
  const src = raw.rope_parameters ?? raw.rope_scaling;
  const key = raw.rope_parameters !== undefined ? "rope_parameters" : "rope_scaling";
  if (src === undefined || src === null) return [];
  if (!isObject(src))
    throw new Problem(at(key), `${at(key)} is not an object`, "commit the model's config.json unchanged from the model repository");
  const perLayer = Object.keys(src).length > 0 && Object.values(src).every(isObject);
  const entries = perLayer ? Object.values(src) : [src];
  return entries.map((e) => {
    const r = e as Json;
    const type = typeof r.rope_type === "string" ? r.rope_type : typeof r.type === "string" ? r.type : "default";
    const factor = typeof r.factor === "number" ? r.factor : null;
    const original = posInt(r.original_max_position_embeddings);
    // transformers patch_rope_parameters: the old `mrope` type is `default` with an mrope section.
    return { type: type === "mrope" ? "default" : type, factor, originalMax: original };
  });
}

function expertsOf(raw: Json): ModelFacts["experts"] {
  let count: number | null = null;
  for (const k of ["num_experts", "moe_num_experts", "n_routed_experts", "num_local_experts"]) {
    const v = raw[k];
    const n = Array.isArray(v) ? posInt(v[0]) : posInt(v);
    if (n !== null) {
      count = n;
      break;
    }
  }
  if (count === null || count <= 1) return null;
  const perToken = posInt(raw.num_experts_per_tok) ?? posInt(raw.experts_per_token) ?? 1;
  return { count, perToken, intermediate: posInt(raw.moe_intermediate_size) };
}

/** The dtype vLLM resolves for `--dtype auto`: float32 checkpoints are downcast to bfloat16 on GPUs. */
function dtypeOf(top: Json, text: Json): ModelFacts["dtype"] {
  const v = top.torch_dtype ?? top.dtype ?? text.torch_dtype ?? text.dtype;
  if (v === "float16" || v === "half") return "float16";
  return "bfloat16";
}

/** ModelConfig._parse_quant_hf_config: quantization_config (or compression_config), top then text config. */
function quantizationOf(top: Json, text: Json): Quantization | null {
  const q = [top.quantization_config, top.compression_config, text.quantization_config, text.compression_config].find(isObject);
  if (!q) return null;
  let method = typeof q.quant_method === "string" ? q.quant_method.toLowerCase() : "";
  const producer = isObject(q.producer) ? q.producer.name : undefined;
  if (producer === "modelopt") {
    const algo = isObject(q.quantization) ? q.quantization.quant_algo : q.quant_algo;
    if (algo === "FP8") method = "modelopt";
    else if (algo === "NVFP4") method = "modelopt_fp4";
  }
  method = method.replace("compressed_tensors", "compressed-tensors");
  let bits = posInt(q.bits) ?? posInt(q.w_bit);
  if (bits === null && isObject(q.config_groups)) {
    for (const g of Object.values(q.config_groups)) {
      if (isObject(g) && isObject(g.weights) && posInt(g.weights.num_bits) !== null) {
        bits = posInt(g.weights.num_bits);
        break;
      }
    }
  }
  const groupSize =
    typeof q.group_size === "number" && q.group_size > 0
      ? q.group_size
      : typeof q.q_group_size === "number" && q.q_group_size > 0
        ? q.q_group_size
        : null;
  return { method: method || "unknown", bits, groupSize };
}
