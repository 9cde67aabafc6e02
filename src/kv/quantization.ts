// The weights a seat holds on its cards when the launch quantises or casts them (docs/vllm-sizing.md#quantisation):
// `--quantization fp8` on a bf16 checkpoint quantises the linear layers online at load (vLLM's
// Fp8LinearMethod: one byte per weight, embeddings and the LM head stay in the load dtype), and
// `--dtype float32` doubles an unquantised checkpoint. A checkpoint that is already quantised
// (quantization_config in config.json) is sized from what it stores: the flag then only names it.
import type { ModelFacts } from "./facts.js";
import { formatBytes } from "../units/bytes.js";

/** Bytes per weight of a linear layer under an online `--quantization` method; null: not online (or unknown). */
const ONLINE: Record<string, number> = { fp8: 1, ptpc_fp8: 1, fbgemm_fp8: 1, experts_int8: 1, bitsandbytes: 0.5 + 1 / 64 };
const DTYPE_BYTES: Record<string, number> = { float32: 4, float: 4, bfloat16: 2, float16: 2, half: 2, auto: 2 };

/** When vocab and hidden size are unknown, the share of the weights taken to be embeddings and LM head:
 *  high on purpose (a small model's embeddings are a third of it), so the estimate errs towards more memory. */
const UNKNOWN_EMBEDDING_SHARE = 0.15;

export interface DeployedWeights {
  bytes: number;
  /** How the launch changed the checkpoint's size, for explain; null when it did not. */
  formula: string | null;
}

function embeddingBytes(facts: ModelFacts | null, weights: number, bytesPerWeight: number): number {
  if (facts?.vocabSize && facts.hiddenSize) {
    const one = facts.vocabSize * facts.hiddenSize * bytesPerWeight;
    return Math.min(weights, facts.tieWordEmbeddings ? one : 2 * one);
  }
  return Math.round(weights * UNKNOWN_EMBEDDING_SHARE);
}

/**
 * The checkpoint's weights (bytes at its own dtype, TP 1) as the launch loads them. `quantization` and
 * `dtype` are the seat's `--quantization` and `--dtype` values (null when unset).
 */
export function deployedWeights(
  weights: number,
  facts: ModelFacts | null,
  quantization: string | null,
  dtype: string | null,
): DeployedWeights {
  if (facts?.quantization || facts?.dtype === "fp8") return { bytes: weights, formula: null };
  const method = quantization?.toLowerCase() ?? null;
  const online = method !== null ? ONLINE[method] : undefined;
  if (online !== undefined) {
    const embeddings = embeddingBytes(facts, weights, 2);
    const linear = weights - embeddings;
    const bytes = Math.round(embeddings + (linear * online) / 2);
    return {
      bytes,
      formula:
        `--quantization ${method}: linear layers ${formatBytes(linear)} × ${online}/2 ` +
        `bytes + embeddings ${formatBytes(embeddings)} = ${formatBytes(bytes)}`,
    };
  }
  const cast = dtype !== null ? DTYPE_BYTES[dtype.toLowerCase()] : undefined;
  if (cast !== undefined && cast !== 2) {
    const bytes = Math.round((weights * cast) / 2);
    return { bytes, formula: `--dtype ${dtype}: ${formatBytes(weights)} × ${cast}/2 = ${formatBytes(bytes)}` };
  }
  return { bytes: weights, formula: null };
}
