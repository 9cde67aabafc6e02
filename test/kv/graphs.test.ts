// The CUDA graphs a seat captures and what they take (src/kv/graphs.ts): the capture sizes each vLLM
// version uses (V0 vllm/worker/model_runner.py _BATCH_SIZES_TO_CAPTURE; V1 vllm/config/vllm.py
// _set_cudagraph_sizes, PR #20628; FULL_AND_PIECEWISE from 0.11.0) and the memory, capture sizes × layers.
import { describe, expect, it } from "vitest";
import { captureSizes, graphMemory } from "../../src/kv/graphs.js";
import { vllmFacts, vllmVersionFacts } from "../../src/kv/vllm-versions.js";
import { GiB } from "../../src/units/bytes.js";
import { pack } from "./fixtures.js";

const entries = vllmVersionFacts(pack.engines);

describe("capture sizes per version", () => {
  // version, max_num_seqs, max_num_batched_tokens → sizes, largest, full decode graphs
  const table: [string, number, number, number, number, number][] = [
    // V0: [1, 2, 4] + 8 … 256, up to max_num_seqs padded to the next size
    ["0.6.4", 256, 2048, 35, 256, 0],
    ["0.6.4", 10, 2048, 5, 16, 0],
    // V1 0.8–0.9: [1, 2, 4] + 8 … 512 (67), up to max_num_batched_tokens
    ["0.9.2", 256, 2048, 67, 512, 0],
    ["0.9.2", 256, 256, 35, 256, 0],
    // 0.10: up to min(2 × max_num_seqs, 512), multiples of 16 past 256 (51 with 256 sequences)
    ["0.10.2", 256, 2048, 51, 512, 0],
    ["0.10.2", 64, 2048, 19, 128, 0],
    // 0.11 on: FULL_AND_PIECEWISE adds a full decode graph per size up to max_num_seqs (35 of 51)
    ["0.11.0", 256, 2048, 51, 512, 35],
  ];
  it.each(table)("vLLM %s, %s sequences, %s tokens", (version, seqs, tokens, count, largest, full) => {
    const g = vllmFacts(version, entries).cudaGraphs;
    const sizes = captureSizes(g, seqs, tokens);
    expect([sizes.length, sizes.at(-1)]).toEqual([count, largest]);
    const m = graphMemory(g, { layers: 1, hiddenSize: 1, maxNumSeqs: seqs, maxNumBatchedTokens: tokens });
    expect(m.units).toBe(count + full);
  });
});

describe("graph memory: capture sizes × layers × hidden × the version's bytes", () => {
  it("takes 200 B per hidden unit per layer and size on V0, 250 B on V1 before 0.10, 100 B to 0.20, 10 B from 0.21", () => {
    expect(["0.6.4", "0.9.2", "0.10.2", "0.21.0"].map((v) => vllmFacts(v, entries).cudaGraphs.bytes_per_hidden)).toEqual([
      200, 250, 100, 10,
    ]);
  });

  // vLLM's graph logs: model, layers, hidden, version, sequences, tokens → measured GiB, tolerance (share)
  const logs: [string, number, number, string, number, number, number, number][] = [
    // vllm-project/vllm#11349 (V0, 0.6.5 dev): Llama-3.2-1B (16 layers, hidden 2,048), 35 graphs, "took 0.21 GiB"
    ["Llama-3.2-1B, V0, 35 graphs (PR #11349)", 16, 2048, "0.6.5", 256, 2048, 0.21, 0.1],
    // vllm-project/vllm#14286 (V1 0.7.4 dev): Llama-3.1-8B (32 layers, 4,096), 67 sizes, "took 2.02 GiB"
    ["Llama-3.1-8B, V1, 67 sizes (#14286)", 32, 4096, "0.9.0", 256, 2048, 2.02, 0.05],
    // vllm-project/vllm#14696 (V1 0.8.2): gemma-3-1b (26 layers, 1,152), 67 sizes, "took 0.44 GiB"
    ["gemma-3-1b, V1 0.8.2 (#14696)", 26, 1152, "0.8.2", 256, 2048, 0.44, 0.1],
    // PR #21489 (V1 0.10): gemma-3-4b (34 layers, 2,560), 51 piecewise sizes, 0.65 GiB — kvgate's 0.41 GiB is the low end
    ["gemma-3-4b, V1 0.10 (PR #21489)", 34, 2560, "0.10.0", 256, 2048, 0.65, 0.4],
  ];
  it.each(logs)("%s", (_n, layers, hiddenSize, version, seqs, tokens, measured, tolerance) => {
    const g = graphMemory(vllmFacts(version, entries).cudaGraphs, { layers, hiddenSize, maxNumSeqs: seqs, maxNumBatchedTokens: tokens });
    expect(Math.abs(g.bytes / GiB - measured) / measured).toBeLessThan(tolerance);
  });

  it("doubles it for MoE layers", () => {
    const g = vllmFacts("0.8.5", entries).cudaGraphs;
    const dense = graphMemory(g, { layers: 48, hiddenSize: 2048, maxNumSeqs: 256, maxNumBatchedTokens: 2048 });
    const moe = graphMemory(g, { layers: 48, hiddenSize: 2048, maxNumSeqs: 256, maxNumBatchedTokens: 2048, moe: true });
    expect(moe.bytes).toBe(2 * dense.bytes);
    expect(moe.formula).toContain("× 2 (MoE)");
  });

  // vllm/worker/model_runner.py capture_model (V0, 0.7.3): `for virtual_engine in
  // range(pipeline_parallel_size)` captures every size once per pipeline stage; V1 captures once.
  it.each([
    ["0.7.3", 4, 4],
    ["0.9.2", 4, 1],
    ["0.11.0", 2, 1],
  ])("vLLM %s with %s pipeline stages captures %s copies", (version, pp, copies) => {
    const g = vllmFacts(version, entries).cudaGraphs;
    const one = graphMemory(g, { layers: 16, hiddenSize: 7168, maxNumSeqs: 256, maxNumBatchedTokens: 2048 });
    const staged = graphMemory(g, { layers: 16, hiddenSize: 7168, maxNumSeqs: 256, maxNumBatchedTokens: 2048, pp });
    expect(staged.bytes).toBe(copies * one.bytes);
  });

  it("writes its arithmetic", () => {
    const g = graphMemory(vllmFacts("0.11.0", entries).cudaGraphs, {
      layers: 32,
      hiddenSize: 4096,
      maxNumSeqs: 256,
      maxNumBatchedTokens: 2048,
    });
    expect(g).toEqual({
      bytes: 32 * 86 * 4096 * 100,
      units: 32 * 86,
      sizes: 51,
      formula: "(51 piecewise sizes + 35 full decode graphs) × 32 layers × 4096 hidden × 100 B",
    });
  });
});
