// What vLLM reads from a model to size its KV cache, in one shape for both sources: a catalog entry
// (rules/models.yaml, kvgate.yaml `models:`) and a committed config.json (src/kv/hf-config.ts).
// Every rule that sizes a seat goes through ModelFacts, so the two sources cannot drift apart.
import type { ModelSpec } from "../config/policy.js";
import type { ModelSpecInput } from "../config/schema.js";
import { bytesOf } from "../units/bytes.js";

/** The KV cache spec vLLM gives a layer (vllm/v1/kv_cache_interface.py). */
export type LayerKind = "full" | "sliding" | "chunked" | "mamba";

/** Gated-delta-net state of a linear-attention layer (Qwen3-Next), before TP. */
export interface LinearState {
  numKeyHeads: number;
  numValueHeads: number;
  keyHeadDim: number;
  valueHeadDim: number;
  convKernel: number;
}

/** One rope_scaling / rope_parameters entry, normalised as transformers' patch_rope_parameters does. */
export interface RopeScaling {
  type: string;
  factor: number | null;
  originalMax: number | null;
}

export interface Quantization {
  /** vLLM's name: fp8, awq, gptq, mxfp4, modelopt, modelopt_fp4, compressed-tensors, ... */
  method: string;
  /** Weight bits where the config says them (GPTQ/AWQ bits, compressed-tensors num_bits). */
  bits: number | null;
  groupSize: number | null;
}

export interface ModelFacts {
  /** Catalog id, or the config.json path. */
  id: string;
  /** Where the facts came from, for messages. */
  source: "catalog" | "config.json";
  modelType: string | null;
  layers: number;
  attentionHeads: number | null;
  /** Total KV heads (get_total_num_kv_heads), before TP. */
  kvHeads: number | null;
  /** get_head_size: head_dim when given, else hidden_size // num_attention_heads. */
  headDim: number | null;
  hiddenSize: number | null;
  intermediateSize: number | null;
  vocabSize: number | null;
  tieWordEmbeddings: boolean;
  /** The dtype vLLM loads with --dtype auto (float32 checkpoints are downcast): KV at `auto`. */
  dtype: "bfloat16" | "float16" | "fp8";
  /**
   * DeepSeek MLA: the cache holds kv_lora_rank + qk_rope_head_dim per token per layer (vLLM ≥ 0.7.1);
   * before, per-head K/V of qk_nope_head_dim + qk_rope_head_dim (null when the source does not say it).
   */
  mla: { kvLoraRank: number; qkRopeHeadDim: number; qkNopeHeadDim: number | null; sparse: boolean } | null;
  /** One entry per layer (length = layers). */
  layerKinds: LayerKind[];
  slidingWindow: number | null;
  attentionChunkSize: number | null;
  linearState: LinearState | null;
  /** The smallest of vLLM's max-length keys (max_position_embeddings, ...), and which key it was. */
  maxLen: { value: number; key: string } | null;
  /** model_max_length in the config: vLLM lets a longer max_model_len pass up to it. */
  modelMaxLength: number | null;
  /** model_max_length of the tokenizer (tokenizer_config.json): vLLM caps the derived maximum to it. */
  tokenizerMaxLength: number | null;
  /** Top-level original_max_position_embeddings (longrope's default max_model_len). */
  originalMaxPositionEmbeddings: number | null;
  rope: RopeScaling[];
  experts: { count: number; perToken: number; intermediate: number | null } | null;
  quantization: Quantization | null;
  /** Weights at TP 1 when the source says them (catalog weights, safetensors index); else null. */
  weightsBytes: number | null;
  /** A measured profiler overhead for this model, when the catalog carries one. */
  overheadBytes: number | null;
  /** Fields the config left out that were filled with the transformers class default. */
  defaulted: string[];
}

/** A catalog entry as toModelSpec leaves it: the optional per-layer fields pass through unconverted. */
export type CatalogModel = ModelSpec &
  Partial<
    Pick<
      ModelSpecInput,
      | "model_type"
      | "layer_pattern"
      | "sliding_window"
      | "attention_chunk_size"
      | "linear_state"
      | "rope_scaling"
      | "intermediate_size"
      | "vocab_size"
      | "experts"
      | "quantization"
      | "overhead"
      | "qk_nope_head_dim"
      | "tokenizer_max_length"
    >
  >;

const LETTER: Record<string, LayerKind> = { F: "full", S: "sliding", C: "chunked", L: "mamba" };

/** `SSSSSF` over 62 layers: the pattern repeated from layer 0, as the models' own layer_types are. */
export function kindsFromPattern(pattern: string, layers: number): LayerKind[] {
  return Array.from({ length: layers }, (_, i) => LETTER[pattern[i % pattern.length] ?? "F"] ?? "full");
}

/** A catalog entry as ModelFacts: what the catalog does not say is full attention on every layer. */
export function factsFromSpec(m: CatalogModel): ModelFacts {
  const rope: RopeScaling[] = [];
  if (m.rope_scaling)
    rope.push({
      type: m.rope_scaling.type,
      factor: m.rope_scaling.factor ?? null,
      originalMax: m.rope_scaling.original_max_position_embeddings ?? null,
    });
  else if (m.yarn) rope.push({ type: "yarn", factor: m.yarn.factor, originalMax: m.yarn.original_max_position_embeddings });
  const headDim =
    m.head_dim ?? (m.hidden_size !== undefined && m.attention_heads !== undefined ? Math.floor(m.hidden_size / m.attention_heads) : null);
  return {
    id: m.id,
    source: "catalog",
    modelType: m.model_type ?? null,
    layers: m.layers,
    attentionHeads: m.attention_heads ?? null,
    kvHeads: m.kv_heads ?? m.attention_heads ?? null,
    headDim,
    hiddenSize: m.hidden_size ?? null,
    intermediateSize: m.intermediate_size ?? null,
    vocabSize: m.vocab_size ?? null,
    tieWordEmbeddings: false,
    dtype: m.dtype === "float32" ? "bfloat16" : m.dtype,
    mla:
      m.kv_lora_rank !== undefined
        ? { kvLoraRank: m.kv_lora_rank, qkRopeHeadDim: m.qk_rope_head_dim ?? 0, qkNopeHeadDim: m.qk_nope_head_dim ?? null, sparse: false }
        : null,
    layerKinds: kindsFromPattern(m.layer_pattern ?? "F", m.layers),
    slidingWindow: m.sliding_window ?? null,
    attentionChunkSize: m.attention_chunk_size ?? null,
    linearState: m.linear_state
      ? {
          numKeyHeads: m.linear_state.num_key_heads,
          numValueHeads: m.linear_state.num_value_heads,
          keyHeadDim: m.linear_state.key_head_dim,
          valueHeadDim: m.linear_state.value_head_dim,
          convKernel: m.linear_state.conv_kernel,
        }
      : null,
    maxLen: { value: m.max_context, key: "max_position_embeddings" },
    modelMaxLength: null,
    tokenizerMaxLength: m.tokenizer_max_length ?? null,
    originalMaxPositionEmbeddings: null,
    rope,
    experts: m.experts ? { count: m.experts.count, perToken: m.experts.per_token, intermediate: m.experts.intermediate ?? null } : null,
    quantization: m.quantization ? { method: m.quantization, bits: null, groupSize: null } : null,
    weightsBytes: m.weights_bytes,
    overheadBytes: m.overhead !== undefined ? bytesOf(m.overhead) : null,
    defaulted: [],
  };
}

/** Layer counts per kind the way explain prints them; MLA layers count as `mla`, not `full`. */
export function countKinds(
  facts: Pick<ModelFacts, "layerKinds" | "mla">,
  kinds: LayerKind[] = facts.layerKinds,
): Record<"full" | "sliding" | "chunked" | "mamba" | "mla", number> {
  const out = { full: 0, sliding: 0, chunked: 0, mamba: 0, mla: 0 };
  for (const k of kinds) {
    if (k === "full" && facts.mla) out.mla++;
    else out[k]++;
  }
  return out;
}
