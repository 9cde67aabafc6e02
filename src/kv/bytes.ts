// Bytes of KV cache per token per GPU (docs/vllm-sizing.md) and the required KV for a context.
import type { ModelSpec } from "../config/policy.js";
import type { Service } from "../model/types.js";

export interface PerToken {
  bytes: number;
  /** `setting`: the service's KV_BYTES_PER_TOKEN; `catalog`: computed from the model. */
  source: "setting" | "catalog";
  /** How it was computed, for messages: `2 × 36 layers × 8 KV heads × 128 × 2 B`. */
  formula: string;
}

/** head_dim when the config says it (Mistral-Nemo, Gemma-2-27B), else hidden_size / attention heads. */
export function headDimOf(model: ModelSpec): number | null {
  if (model.head_dim !== undefined) return model.head_dim;
  if (model.hidden_size !== undefined && model.attention_heads !== undefined) return model.hidden_size / model.attention_heads;
  return null;
}

/** `fp8*` KV is 1 byte; `auto` (or unset) is the model's dtype. */
function kvDtypeBytes(model: ModelSpec | null, kvCacheDtype: unknown): number {
  if (typeof kvCacheDtype === "string" && kvCacheDtype.toLowerCase().startsWith("fp8")) return 1;
  if (kvCacheDtype === "float32") return 4;
  switch (model?.dtype ?? "bfloat16") {
    case "fp8":
      return 1;
    case "float32":
      return 4;
    default:
      return 2;
  }
}

export interface PerTokenOptions {
  /** Layers on the sized card: one pipeline stage's (the fullest), else every layer. */
  layers?: number;
  /** false: vLLM before 0.7.1 cached DeepSeek's per-head K/V (qk_nope + qk_rope per head), not the MLA latent. */
  mlaCache?: boolean;
}

/**
 * Per GPU: GQA heads split across TP (never below one per GPU); an MLA latent is replicated, not
 * split. Under pipeline parallelism, the layers of the fullest stage (one card's share).
 */
export function perTokenOfModel(model: ModelSpec, tp: number, kvCacheDtype: unknown, opts: PerTokenOptions = {}): PerToken | null {
  const d = kvDtypeBytes(model, kvCacheDtype);
  const layers = opts.layers ?? model.layers;
  const onStage = layers === model.layers ? `${layers} layers` : `${layers} layers of one pipeline stage`;
  if (model.kv_lora_rank !== undefined && opts.mlaCache !== false) {
    const rope = model.qk_rope_head_dim ?? 0;
    return {
      bytes: layers * (model.kv_lora_rank + rope) * d,
      source: "catalog",
      formula: `${onStage} × (${model.kv_lora_rank} + ${rope}) × ${d} B`,
    };
  }
  const heads = model.kv_heads ?? model.attention_heads;
  const hd =
    model.kv_lora_rank !== undefined
      ? model.qk_nope_head_dim !== undefined
        ? model.qk_nope_head_dim + (model.qk_rope_head_dim ?? 0)
        : null
      : headDimOf(model);
  if (heads === undefined || hd === null) return null;
  const perGpu = Math.max(1, heads / Math.max(1, tp));
  return {
    bytes: 2 * layers * perGpu * hd * d,
    source: "catalog",
    formula: `2 × ${onStage} × ${perGpu} KV heads × ${hd} × ${d} B`,
  };
}

export function bytesPerToken(model: ModelSpec | null, service: Service): PerToken | null {
  const own = service.settings.kv_bytes_per_token?.value;
  if (typeof own === "number" && own > 0) return { bytes: own, source: "setting", formula: "KV_BYTES_PER_TOKEN" };
  if (!model) return null;
  return perTokenOfModel(model, service.tp, service.settings.kv_cache_dtype?.value);
}

export interface RequiredInput {
  factor: number;
  maxModelLen: number;
  bytesPerToken: number;
  roundBytes: number;
}

/** ceil(factor × max_model_len × b / round) × round. */
export function requiredKv(i: RequiredInput): number {
  const units = (i.factor * i.maxModelLen * i.bytesPerToken) / i.roundBytes;
  // 1e-9 keeps an exact multiple (1.0 × 32,768 × 147,456 / 0.5 GiB = 9) from rounding up on float noise.
  return Math.ceil(units - 1e-9) * i.roundBytes;
}
