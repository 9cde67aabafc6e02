// What a seat without a byte pin gets for KV: vLLM's profiler (vllm/v1/worker/gpu_worker.py
// determine_available_memory) takes requested_memory = total × gpu_memory_utilization and subtracts
// what the profile run left allocated: the weights, the PyTorch activation peak of one forward pass
// over max_num_batched_tokens (plus the sampler over max_num_seqs rows), and non-torch memory (CUDA
// context, cuBLAS/NCCL workspaces, custom all-reduce buffers):
//   KV ≈ utilization × total − weights/TP − overhead
// The overhead is estimated per seat and calibrated on vLLM's own logs:
//   - PR #10511 (github.com/vllm-project/vllm/pull/10511), Meta-Llama-3-8B on an H100 (79.22 GiB),
//     utilization 0.90: weights 14.96 GiB, non_torch_memory 1.79 GiB, PyTorch activation peak
//     1.26 GiB at TP 1; at TP 2 non_torch_memory 3.58 GiB, activation 1.26 GiB;
//   - issue #11251 (…/issues/11251), a 4B model on a 15.77 GiB card, 40,000-token batch: weights
//     7.51 GiB, non_torch 0.39 GiB, activation peak 2.53 GiB;
//   - issue #23278 (…/issues/23278), gpt-oss-120b on an H100 at the default 0.9: "Model loading took
//     65.9651 GiB", "Available KV cache memory: -2.14 GiB" → overhead 0.9 × 79.19 − 65.97 + 2.14 ≈ 7.4 GiB;
//     issue #27508 (…/issues/27508): 0.95 and --max-num-batched-tokens 1024 → 1.71 GiB available
//     → ≈ 7.5 GiB: not the activation (the batch changed 8×), so the catalog carries it per model.
// The estimate: non-torch 1.8 GiB at TP 1 and 3.6 GiB at TP ≥ 2 (PR #10511's pair); activation
// max_num_batched_tokens × 2 B × (8 × hidden + 2 × MLP width) (PR #10511: 0.94 vs 1.26 GiB measured;
// #11251: 2.98 vs 2.53 GiB); sampler max_num_seqs × vocab × 4 B × 2 (fp32 logits and one working
// copy). For Llama-3.1-8B: 2.28 GiB with vLLM's small-card defaults (2,048 tokens, 256 sequences)
// and 3.72 GiB with its ≥ 70 GiB defaults (8,192 tokens, 1,024 sequences), against the 2.4–3.3 GiB
// users' logs show (issue 16): within 0.15 GiB below and 0.4 GiB above that range.
//
// CUDA graphs: captured after the profile and outside the utilization budget until vLLM v0.21.0
// ("CUDA graph memory profiling is enabled (default since v0.21.0)", VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS,
// PR #30515); vLLM's own V0 warning sized them "1~3 GiB memory per GPU" (vllm/worker/model_runner.py,
// "CUDA graphs can take additional 1~3 GiB memory per GPU"). V1 logs show 0.26–1.3 GiB (PR #21489:
// 0.65 GiB for gemma-3-4b, ~1.3 GiB for Llama-4-Maverick). kvgate takes vLLM's lower bound, 1 GiB.
//
// The booting seat's own CUDA context: vLLM measures free memory (the boot check, gpu_worker
// init_device: "Free memory on device … is less than desired GPU memory utilization") after its own
// CUDA context and NCCL are up. A CUDA context with lazy module loading takes ~300 MiB (NVIDIA's
// ptrblck, pytorch/pytorch#107667; 300–400 MB in pytorch/pytorch#20532); with cuBLAS and NCCL
// initialised kvgate rounds that up to 512 MiB (vllm.context_overhead default).
import { GiB, MiB } from "../units/bytes.js";
import type { ModelFacts } from "./facts.js";
import type { BatchDefaults } from "./vllm-versions.js";

const NON_TORCH_TP1 = Math.round(1.8 * GiB);
const NON_TORCH_TP_MULTI = Math.round(3.6 * GiB);
export const CUDA_GRAPH_ESTIMATE = 1 * GiB;
export const CONTEXT_OVERHEAD_DEFAULT = 512 * MiB;

export interface OverheadInput {
  tp: number;
  maxNumBatchedTokens: number;
  maxNumSeqs: number;
  /** The service's OVERHEAD_MIB, in bytes: it wins over everything. */
  override?: number | null;
}

export interface Overhead {
  bytes: number;
  source: "setting" | "catalog" | "estimate";
  nonTorch: number;
  activation: number;
  sampler: number;
  formula: string;
}

export function profilerOverhead(
  facts: Pick<ModelFacts, "hiddenSize" | "intermediateSize" | "vocabSize" | "experts" | "overheadBytes">,
  i: OverheadInput,
): Overhead {
  if (i.override !== undefined && i.override !== null)
    return { bytes: i.override, source: "setting", nonTorch: 0, activation: 0, sampler: 0, formula: "OVERHEAD_MIB" };
  if (facts.overheadBytes !== null)
    return {
      bytes: facts.overheadBytes,
      source: "catalog",
      nonTorch: 0,
      activation: 0,
      sampler: 0,
      formula: "measured for this model (rules/models.yaml)",
    };
  const nonTorch = i.tp > 1 ? NON_TORCH_TP_MULTI : NON_TORCH_TP1;
  const hidden = facts.hiddenSize ?? 4096;
  const dense = facts.intermediateSize ?? 4 * hidden;
  // A MoE layer's fused experts hold tokens × experts per token × expert width.
  const mlpWidth = facts.experts ? Math.max(dense, (facts.experts.intermediate ?? dense) * facts.experts.perToken) : dense;
  const activation = i.maxNumBatchedTokens * 2 * (8 * hidden + 2 * mlpWidth);
  const rows = Math.min(i.maxNumSeqs, i.maxNumBatchedTokens);
  const sampler = rows * (facts.vocabSize ?? 128_256) * 4 * 2;
  return {
    bytes: nonTorch + activation + sampler,
    source: "estimate",
    nonTorch,
    activation,
    sampler,
    formula: `non-torch ${i.tp > 1 ? "3.6" : "1.8"} GiB + ${i.maxNumBatchedTokens} batched tokens × 2 B × (8 × ${hidden} + 2 × ${mlpWidth}) + ${rows} sequences × ${facts.vocabSize ?? 128_256} vocab × 8 B`,
  };
}

export interface KvEstimateInput {
  /** The card's CUDA total (torch.cuda.mem_get_info), not the marketing size. */
  totalBytes: number;
  utilization: number;
  /** Weights on this card (weights / TP, or the fullest PP stage). */
  weightsPerGpu: number;
  overhead: number;
  /** Since v0.21.0 vLLM also subtracts its CUDA graph estimate inside the budget. */
  graphsInBudget?: number;
}

/** The KV an unpinned seat will get; negative when vLLM would report "No available memory for the cache blocks". */
export function estimatedKv(i: KvEstimateInput): number {
  return Math.floor(i.utilization * i.totalBytes - i.weightsPerGpu - i.overhead - (i.graphsInBudget ?? 0));
}

/** kv/graph-headroom: what (1 − utilization) × total leaves for CUDA graphs captured outside the budget. */
export function graphHeadroom(i: { totalBytes: number; utilization: number; graphBytes?: number }): {
  outside: number;
  needed: number;
  short: number;
} {
  const outside = Math.floor((1 - i.utilization) * i.totalBytes);
  const needed = i.graphBytes ?? CUDA_GRAPH_ESTIMATE;
  return { outside, needed, short: Math.max(0, needed - outside) };
}

/**
 * vllm/engine/arg_utils.py (_set_default_args / get_batch_defaults): `vllm serve` budgets 8192
 * batched tokens and 1024 sequences on cards of ≥ 70 GiB that are not A100s (PR #17885), else
 * 2048 tokens and 256 sequences.
 */
export function defaultBatchLimits(
  cardTotalBytes: number,
  cardName = "",
  d: BatchDefaults = { large_tokens: 8192, large_seqs: 1024, small_tokens: 2048, small_seqs: 256 },
): { maxNumBatchedTokens: number; maxNumSeqs: number } {
  const large = cardTotalBytes >= 70 * GiB && !/a100/i.test(cardName);
  return large
    ? { maxNumBatchedTokens: d.large_tokens, maxNumSeqs: d.large_seqs }
    : { maxNumBatchedTokens: d.small_tokens, maxNumSeqs: d.small_seqs };
}
