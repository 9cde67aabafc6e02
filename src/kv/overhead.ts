// What a seat without a byte pin gets for KV: vLLM's profiler (vllm/v1/worker/gpu_worker.py
// Worker.determine_available_memory; vllm/utils/mem_utils.py memory_profiling) takes
// requested_memory = total × gpu_memory_utilization and subtracts non_kv_cache_memory = the weights +
// the PyTorch peak increase of one profile run (a forward pass over max_num_batched_tokens and the
// sampler over max_num_seqs rows) + the non-torch increase since the init snapshot:
//   KV ≈ utilization × total − weights/TP − (activation + sampler + non-torch)
// The init snapshot (Worker.init_device) is taken after the CUDA context is up, so the context is
// never in the overhead; NCCL and the custom all-reduce buffers are in it only before 0.11.0 (PR
// #25359 moved the snapshot after init_worker_distributed_environment; version fact nccl_in_profile).
// The same holds before: V1 before PR #19312 counted the memory taken since init_gpu_memory that torch
// does not hold, V0 since PR #9352 the non-torch allocations of the profile run.
// The estimate, calibrated on vLLM's own logs (test/kv/overhead.test.ts cites each):
//   - non-torch: 0.25 GiB (cuBLAS/Triton workspaces and lazily loaded kernels; logs print 0.16–0.39
//     GiB: #10517 0.35 at TP 1, #15598 0.28 at TP 8, #11251 0.39), plus, while NCCL is after the
//     snapshot, 0.15 GiB at TP ≥ 2;
//   - activation: max_num_batched_tokens × 2 B × (8 × hidden + 2 × MLP width / TP) (#10517 on an RTX
//     3090: 2.29 vs 2.07 GiB at 20,000 tokens, 0.06 vs 0.06 at 512; #15598: 1.87 vs 1.52 GiB);
//   - the V1 sampler, max_num_seqs × vocab × 36 B (its dummy run sorts the vocabulary for top-p/top-k),
//     which runs after the forward pass: the peak is the larger of the two (gpt-oss-120b: 7.15 GiB
//     against the 7.4–7.5 GiB #23278 and #27508 logged).
// A catalog entry can carry a measured `overhead` (gpt-oss-120b: ~7.5 GiB, issues #23278 and #27508,
// where the MoE's non-torch memory is not what a dense model leaves), and OVERHEAD_MIB wins.
//
// CUDA graphs (src/kv/graphs.ts): captured after the profile and outside the utilization budget until
// vLLM v0.21.0 (PR #38284 turned VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS on, PR #30515), which
// subtracts them inside it. Outside the budget, the capture runs in what the card has left:
// (1 − utilization) × total − the seat's own CUDA context − its neighbours, plus the activation peak
// the profile freed (torch.cuda.empty_cache before the KV cache is allocated).
//
// The booting seat's own CUDA context: vLLM measures free memory (the boot check, gpu_worker
// init_device: "Free memory on device … is less than desired GPU memory utilization") after its own
// CUDA context and NCCL are up. A CUDA context with lazy module loading takes ~300 MiB (NVIDIA's
// ptrblck, pytorch/pytorch#107667; 300–400 MB in pytorch/pytorch#20532); with cuBLAS and NCCL
// initialised kvgate rounds that up to 512 MiB (vllm.context_overhead default).
import { GiB, MiB } from "../units/bytes.js";
import type { ModelFacts } from "./facts.js";

/** Non-torch memory a profile run adds at TP 1 (and at any TP once NCCL is before the snapshot). */
const NON_TORCH_BASE = Math.round(0.25 * GiB);
/** NCCL communicators and custom all-reduce buffers, counted while they are allocated after the snapshot. */
const NON_TORCH_NCCL = Math.round(0.15 * GiB);
export const CONTEXT_OVERHEAD_DEFAULT = 512 * MiB;
/**
 * What V1's dummy sampler run holds per logit (row × vocabulary entry). Calibrated on gpt-oss-120b at
 * its 1,024 default rows: vLLM logged ~7.5 GiB of overhead whatever the batched tokens (#23278 at 8,192,
 * #27508 at 1,024): 1,024 × 201,088 × 36 B = 6.9 GiB + non-torch.
 */
const SAMPLER_BYTES_PER_LOGIT = 36;

export interface OverheadInput {
  tp: number;
  /** NCCL is set up after the profiler's baseline (vLLM before 0.11.0). */
  ncclInProfile: boolean;
  /** The V0 engine (vLLM before 0.8): no sampler rows in the profile's peak. */
  v0?: boolean;
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
  const nccl = i.tp > 1 && i.ncclInProfile;
  const nonTorch = NON_TORCH_BASE + (nccl ? NON_TORCH_NCCL : 0);
  const hidden = facts.hiddenSize ?? 4096;
  const dense = facts.intermediateSize ?? 4 * hidden;
  // A MoE layer's fused experts hold tokens × experts per token × expert width; the MLP is split by TP,
  // the residual stream is not.
  const mlpWidth = facts.experts ? Math.max(dense, (facts.experts.intermediate ?? dense) * facts.experts.perToken) : dense;
  const tp = Math.max(1, i.tp);
  const mlpPerGpu = Math.ceil(mlpWidth / tp);
  const activation = i.maxNumBatchedTokens * 2 * (8 * hidden + 2 * mlpPerGpu);
  const rows = Math.min(i.maxNumSeqs, i.maxNumBatchedTokens);
  // V1's profile run samples max_num_seqs rows after the forward pass (GPUModelRunner._dummy_sampler_run)
  // with top_p 0.9 and top_k vocab − 1, so apply_top_k_top_p sorts the whole vocabulary: fp32 logits, the
  // sorted copy and its int64 indices, softmax, cumulative sum and the scattered result live at once,
  // ~36 B per row and token of the vocabulary. The peak is the larger of that and the forward pass. V0's
  // profile samples no logits worth counting (its logs show the activation alone: #10517, 0.06 GiB at
  // 512 tokens).
  const sampler = i.v0 ? 0 : rows * (facts.vocabSize ?? 128_256) * SAMPLER_BYTES_PER_LOGIT;
  const ncclText = nccl ? `${gib(NON_TORCH_BASE)} + ${gib(NON_TORCH_NCCL)} (NCCL)` : gib(NON_TORCH_BASE);
  return {
    bytes: nonTorch + Math.max(activation, sampler),
    source: "estimate",
    nonTorch,
    activation,
    sampler,
    formula:
      `non-torch ${ncclText} GiB + the larger of ${i.maxNumBatchedTokens} batched tokens ` +
      `× 2 B × (8 × ${hidden} + 2 × ${mlpPerGpu}) and ` +
      `${i.v0 ? "no sampler (V0)" : `${rows} sequences × ${facts.vocabSize ?? 128_256} vocab × ${SAMPLER_BYTES_PER_LOGIT} B`}`,
  };
}

const gib = (b: number): string => String(Math.round((b / GiB) * 100) / 100);

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

/**
 * kv/graph-headroom: the memory a CUDA graph capture outside the budget runs in, on one card: what the
 * budget leaves, less the seat's CUDA context and its neighbours, plus the activation peak the profile
 * run freed. `short`: how much the graphs lack (0 when they fit).
 */
export function graphHeadroom(i: {
  totalBytes: number;
  utilization: number;
  graphBytes: number;
  contextBytes: number;
  othersBytes?: number;
  activationBytes?: number;
}): { outside: number; free: number; needed: number; short: number } {
  const outside = Math.floor((1 - i.utilization) * i.totalBytes);
  const free = outside - i.contextBytes - (i.othersBytes ?? 0) + (i.activationBytes ?? 0);
  return { outside, free, needed: i.graphBytes, short: Math.max(0, i.graphBytes - free) };
}
