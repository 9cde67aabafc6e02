// The CUDA graphs a vLLM seat captures and the memory they take (without --enforce-eager).
// Which graphs (version fact cuda_graphs, rules/engines.yaml):
// - V0 (vllm/worker/model_runner.py _BATCH_SIZES_TO_CAPTURE): one graph of the whole model per batch
//   size [1, 2, 4] + multiples of 8 up to 256, up to max_num_seqs (padded to the next size);
// - V1 piecewise (PR #10058): the model split at every attention op, so one graph per layer (plus the
//   last piece) per size: [1, 2, 4] + multiples of 8 up to 512 (up to max_num_batched_tokens); from
//   PR #20628 (vllm/config/vllm.py _set_cudagraph_sizes) up to min(2 × max_num_seqs, 512) with multiples
//   of 16 past 256;
// - FULL_AND_PIECEWISE (default from 0.11.0): also one full decode graph per size up to max_num_seqs.
// Under pipeline parallelism V0 captures every size once per virtual engine, i.e. pipeline stage
// (vllm/worker/model_runner.py capture_model: `for virtual_engine in range(pipeline_parallel_size)`),
// each graph over the stage's own layers; V1 captures each stage's graphs once.
// What they take: vLLM's own profile (gpu_model_runner.profile_cudagraph_memory, PR #30515) is the
// first capture plus (n − 1) × a per-graph figure; the captures' memory grows with the number of
// layer-graphs (each layer's kernels are nodes of every graph, their buffers as wide as the hidden
// size) — capture sizes × layers × hidden × the version's bytes_per_hidden, calibrated on vLLM's own
// "Graph capturing finished in … took … GiB" and "Estimated CUDA graph memory" log lines
// (rules/engines.yaml cuda_graphs; test/kv/graphs.test.ts).
import type { GraphCapture } from "./vllm-versions.js";

const range = (from: number, to: number, step: number): number[] => {
  const out: number[] = [];
  for (let v = from; v <= to; v += step) out.push(v);
  return out;
};

/** The batch sizes the seat captures graphs for, ascending. */
export function captureSizes(g: GraphCapture, maxNumSeqs: number, maxNumBatchedTokens: number): number[] {
  switch (g.sizes) {
    case "v0": {
      // _get_max_graph_batch_size: max_num_seqs padded up to the next capture size, at most 256.
      const all = [1, 2, 4, ...range(8, 256, 8)];
      const top = all.find((s) => s >= Math.min(maxNumSeqs, 256)) ?? 256;
      return all.filter((s) => s <= top);
    }
    case "v1_512":
      return [1, 2, 4, ...range(8, 512, 8)].filter((s) => s <= maxNumBatchedTokens);
    case "v1_seqs": {
      const max = Math.min(2 * maxNumSeqs, 512, maxNumBatchedTokens);
      return [1, 2, 4, ...range(8, 248, 8), ...range(256, max, 16)].filter((s) => s <= max);
    }
    default:
      g.sizes satisfies never;
      return [];
  }
}

export interface GraphEstimate {
  bytes: number;
  /** Layer-graphs captured: capture sizes × layers (plus the full decode graphs). */
  units: number;
  sizes: number;
  formula: string;
}

/**
 * MoE layers take about twice a dense layer's graph memory: the fused-experts kernels' routing and
 * workspace buffers are captured with every size (vllm-project/vllm#17469: Qwen3-30B-A3B out of memory
 * capturing on 4 A10s where its dense peers fit; #18446: "In V1, the CUDA graph takes up more memory").
 */
const MOE_GRAPH_FACTOR = 2;

export function graphMemory(
  g: GraphCapture,
  i: { layers: number; hiddenSize: number; maxNumSeqs: number; maxNumBatchedTokens: number; moe?: boolean; pp?: number },
): GraphEstimate {
  const sizes = captureSizes(g, i.maxNumSeqs, i.maxNumBatchedTokens);
  const full = g.mode === "full_and_piecewise" ? sizes.filter((s) => s <= i.maxNumSeqs).length : 0;
  // V0 (mode full) captures the sizes once per virtual engine, one per pipeline stage.
  const copies = g.mode === "full" ? Math.max(1, i.pp ?? 1) : 1;
  const units = i.layers * (sizes.length + full) * copies;
  const what =
    g.mode === "full"
      ? copies > 1
        ? `${sizes.length} full graphs × ${copies} virtual engines`
        : `${sizes.length} full graphs`
      : g.mode === "piecewise"
        ? `${sizes.length} piecewise sizes`
        : `${sizes.length} piecewise sizes + ${full} full decode graphs`;
  const moe = i.moe ? MOE_GRAPH_FACTOR : 1;
  return {
    bytes: units * i.hiddenSize * g.bytes_per_hidden * moe,
    units,
    sizes: sizes.length,
    formula: `(${what}) × ${i.layers} layers × ${i.hiddenSize} hidden × ${g.bytes_per_hidden} B${i.moe ? ` × ${MOE_GRAPH_FACTOR} (MoE)` : ""}`,
  };
}
