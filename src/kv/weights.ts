// The weights a seat loads, from what the model repository carries:
// - model.safetensors.index.json: metadata.total_size, the bytes of every tensor in the checkpoint
//   (vLLM loads them as stored; a quantised checkpoint's size is its quantised size);
// - else an estimate from config.json: parameters by layer (attention or MLA or linear attention,
//   dense MLP or every MoE expert — all experts are resident on the card) × bytes per parameter of
//   the checkpoint's quantization_config. Embeddings and the LM head stay in bf16; fp8 block scales,
//   norms and biases are left out (well under 0.1 %).
import type { ConfigProblem } from "./hf-config.js";
import { textConfigOf } from "./hf-config.js";
import type { ModelFacts } from "./facts.js";

export type WeightsRead =
  { ok: true; bytes: number; source: "index" | "estimate"; formula: string } | { ok: false; problem: ConfigProblem };

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** model.safetensors.index.json → metadata.total_size. */
export function weightsFromIndex(text: string, file: string): WeightsRead {
  const fix = "commit model.safetensors.index.json unchanged from the model repository, or set WEIGHTS_MIB for the service";
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return { ok: false, problem: { file, field: "(file)", message: `${file} is not valid JSON (${(e as Error).message})`, fix } };
  }
  const meta = isObject(json) ? json.metadata : undefined;
  const total = isObject(meta) ? meta.total_size : undefined;
  if (typeof total !== "number" || !Number.isSafeInteger(total) || total <= 0) {
    return {
      ok: false,
      problem: { file, field: "metadata.total_size", message: `${file}: metadata.total_size is missing or not a positive integer`, fix },
    };
  }
  return { ok: true, bytes: total, source: "index", formula: `metadata.total_size ${total}` };
}

/** Bytes per parameter of a quantised linear layer; null when kvgate does not know the method. */
function quantBytes(q: NonNullable<ModelFacts["quantization"]>): number | null {
  const group = q.groupSize !== null && q.groupSize > 0 ? q.groupSize : null;
  switch (q.method) {
    case "fp8":
    case "modelopt":
    case "fbgemm_fp8":
    case "ptpc_fp8":
      return 1;
    case "mxfp4":
      // 4-bit values + one e8m0 scale per 32.
      return 0.5 + 1 / 32;
    case "modelopt_fp4":
    case "nvfp4":
      // 4-bit values + one fp8 scale per 16.
      return 0.5 + 1 / 16;
    case "awq":
    case "awq_marlin":
    case "gptq":
    case "gptq_marlin": {
      const bits = q.bits ?? 4;
      // Packed values + an fp16 scale and a packed zero point per group.
      return bits / 8 + (group ? (2 + bits / 8) / group : 0);
    }
    case "compressed-tensors":
    case "bitsandbytes": {
      if (q.bits === null) return null;
      return q.bits / 8 + (group ? 2 / group : 0);
    }
    default:
      return null;
  }
}

const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) && v > 0 ? v : 0);

/**
 * Parameters of the language model by part. `json` is the config.json already read into `facts`
 * (factsFromHfJson succeeded), so its text config is known to be well formed.
 */
function parameterCount(
  json: Record<string, unknown>,
  facts: ModelFacts,
): { embed: number; attention: number; mlp: number; experts: number } {
  const { text } = textConfigOf(json);
  const H = facts.hiddenSize ?? 0;
  const V = facts.vocabSize ?? 0;
  const heads = facts.attentionHeads ?? 0;
  const embed = V * H * (facts.tieWordEmbeddings ? 1 : 2);
  let attention = 0;
  for (const kind of facts.layerKinds) {
    if (kind === "mamba" && facts.linearState) {
      const s = facts.linearState;
      const convDim = 2 * s.numKeyHeads * s.keyHeadDim + s.numValueHeads * s.valueHeadDim;
      attention +=
        H * (2 * s.numKeyHeads * s.keyHeadDim + 2 * s.numValueHeads * s.valueHeadDim) +
        H * 2 * s.numValueHeads +
        convDim * s.convKernel +
        s.numValueHeads * s.valueHeadDim * H;
    } else if (facts.mla) {
      const nope = num(text.qk_nope_head_dim);
      const rope = facts.mla.qkRopeHeadDim;
      const v = num(text.v_head_dim);
      const qLora = num(text.q_lora_rank);
      const q = qLora > 0 ? H * qLora + qLora * heads * (nope + rope) : H * heads * (nope + rope);
      attention += q + H * (facts.mla.kvLoraRank + rope) + facts.mla.kvLoraRank * heads * (nope + v) + heads * v * H;
    } else {
      const hd = facts.headDim ?? 0;
      // Qwen3-Next gates its attention output: q_proj is twice as wide.
      const qWidth = text.attn_output_gate === true || facts.modelType === "qwen3_next" ? 2 : 1;
      attention += H * heads * hd * qWidth + 2 * H * (facts.kvHeads ?? 0) * hd + heads * hd * H;
    }
  }
  const I = num(text.intermediate_size);
  let mlp = 0;
  let experts = 0;
  const e = facts.experts;
  if (!e) {
    mlp = facts.layers * 3 * H * I;
  } else {
    const Ie = e.intermediate ?? I;
    const firstDense = num(text.first_k_dense_replace);
    const step = num(text.interleave_moe_layer_step) || 1;
    const denseI = num(text.intermediate_size_mlp) || I;
    const sharedI =
      num(text.shared_expert_intermediate_size) || num(text.n_shared_experts) * Ie || (facts.modelType?.startsWith("llama4") ? I : 0);
    for (let i = 0; i < facts.layers; i++) {
      const moe = i >= firstDense && (step === 1 || (i + 1) % step === 0);
      if (!moe) {
        mlp += 3 * H * denseI;
        continue;
      }
      experts += e.count * 3 * H * Ie;
      mlp += 3 * H * sharedI + H * e.count;
    }
  }
  return { embed, attention, mlp, experts };
}

/** Weights on the card at TP 1 from config.json alone. */
export function estimateWeights(json: Record<string, unknown>, facts: ModelFacts): WeightsRead {
  const file = facts.id;
  const fix = "commit model.safetensors.index.json beside config.json, or set WEIGHTS_MIB for the service";
  if (facts.hiddenSize === null || facts.vocabSize === null) {
    return {
      ok: false,
      problem: {
        file,
        field: "hidden_size",
        message: `${file}: hidden_size or vocab_size missing, so the weights cannot be estimated`,
        fix,
      },
    };
  }
  const p = parameterCount(json, facts);
  const linear = p.attention + p.mlp + p.experts;
  const params = p.embed + linear;
  const q = facts.quantization;
  const bf16 = 2;
  if (!q) {
    return { ok: true, bytes: params * bf16, source: "estimate", formula: `${fmt(params)} parameters × 2 B` };
  }
  const qb = quantBytes(q);
  if (qb === null) {
    return {
      ok: false,
      problem: {
        file,
        field: "quantization_config",
        message: `${file}: kvgate cannot estimate the size of ${q.method}${q.bits ? ` ${q.bits}-bit` : ""} weights`,
        fix,
      },
    };
  }
  // gpt-oss (mxfp4) quantises the experts only; attention, router, embeddings and LM head stay bf16.
  const quantised = q.method === "mxfp4" ? p.experts : linear;
  const bytes = (params - quantised) * bf16 + quantised * qb;
  return {
    ok: true,
    bytes: Math.round(bytes),
    source: "estimate",
    formula: `${fmt(quantised)} ${q.method} parameters × ${qb} B + ${fmt(params - quantised)} × 2 B`,
  };
}

function fmt(n: number): string {
  return n >= 1e9 ? `${(n / 1e9).toFixed(2)}B` : `${(n / 1e6).toFixed(1)}M`;
}
