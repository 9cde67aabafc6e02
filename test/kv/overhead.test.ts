// The KV an unpinned seat gets and the profiler overhead it is estimated with, as vLLM's
// Worker.determine_available_memory counts it (vllm/v1/worker/gpu_worker.py; V0 vllm/worker/worker.py
// determine_num_available_blocks): utilization × total − (weights + torch peak increase + non-torch
// increase after the init snapshot). Each figure against the vLLM log it is calibrated on.
import { describe, expect, it } from "vitest";
import { requestKv, requiredForRequest } from "../../src/kv/attention.js";
import { CONTEXT_OVERHEAD_DEFAULT, estimatedKv, graphHeadroom, profilerOverhead } from "../../src/kv/overhead.js";
import { GiB, MiB } from "../../src/units/bytes.js";
import { catalogFacts } from "./config-fixtures.js";

// Llama-3.1-8B: hidden 4,096, MLP 14,336, vocab 128,256
const llama = catalogFacts("meta-llama/Llama-3.1-8B-Instruct");
const NON_TORCH = Math.round(0.25 * GiB); // 268,435,456
const NCCL = Math.round(0.15 * GiB); // 161,061,274

describe("profiler overhead per seat (Worker.determine_available_memory)", () => {
  // version, TP, NCCL after the snapshot, V0, batched tokens, sequences → non-torch, activation, sampler, bytes
  const table: [string, number, boolean, boolean, number, number, number, number, number, number][] = [
    // V1 small-card defaults (EngineArgs.get_batch_defaults since 0.9.0): 2,048 tokens, 256 rows.
    // activation 2,048 × 2 B × (8 × 4,096 + 2 × 14,336) = 251,658,240; the dummy sampler run sorts the
    // vocabulary (top_p 0.9, top_k vocab − 1): 256 × 128,256 × 36 B = 1,182,007,296
    ["0.11.0, TP 1, 2,048 / 256", 1, false, false, 2048, 256, NON_TORCH, 251_658_240, 1_182_007_296, NON_TORCH + 1_182_007_296],
    // ≥ 70 GiB cards: 8,192 tokens, 1,024 rows; the sampler runs after the forward pass, so the larger counts
    ["0.11.0, TP 1, 8,192 / 1,024", 1, false, false, 8192, 1024, NON_TORCH, 1_006_632_960, 4_728_029_184, NON_TORCH + 4_728_029_184],
    // before PR #25359 (0.11.0) NCCL was set up after the snapshot: its buffers are in the overhead at TP ≥ 2,
    // and the MLP's activation is split by TP (14,336 / 2)
    [
      "0.10.2, TP 2, NCCL counted",
      2,
      true,
      false,
      2048,
      256,
      NON_TORCH + NCCL,
      2048 * 2 * (8 * 4096 + 2 * 7168),
      1_182_007_296,
      NON_TORCH + NCCL + 1_182_007_296,
    ],
    [
      "0.11.0, TP 2, NCCL before the snapshot",
      2,
      false,
      false,
      2048,
      256,
      NON_TORCH,
      2048 * 2 * (8 * 4096 + 2 * 7168),
      1_182_007_296,
      NON_TORCH + 1_182_007_296,
    ],
    // V0 (0.6.4): max(max_model_len, 2048) tokens and no sampler rows worth counting
    ["0.6.4 V0, 20,000 tokens", 1, true, true, 20_000, 256, NON_TORCH, 2_457_600_000, 0, NON_TORCH + 2_457_600_000],
  ];
  it.each(table)("%s", (_v, tp, ncclInProfile, v0, tokens, seqs, nonTorch, activation, sampler, bytes) => {
    const o = profilerOverhead(llama, { tp, ncclInProfile, v0, maxNumBatchedTokens: tokens, maxNumSeqs: seqs });
    expect([o.nonTorch, o.activation, o.sampler, o.bytes]).toEqual([nonTorch, activation, sampler, bytes]);
    expect(o.source).toBe("estimate");
  });

  it("comes within 5 % of gpt-oss-120b's logged 7.5 GiB from the sampler alone (#23278, #27508), the figure the catalog keeps", () => {
    const oss = { ...catalogFacts("openai/gpt-oss-120b"), overheadBytes: null };
    const o = profilerOverhead(oss, { tp: 1, ncclInProfile: false, maxNumBatchedTokens: 8192, maxNumSeqs: 1024 });
    // 1,024 × 201,088 × 36 B = 7,413,112,832 + 0.25 GiB non-torch
    expect(o.sampler).toBe(1024 * 201_088 * 36);
    expect(Math.abs(o.bytes / GiB - 7.5) / 7.5).toBeLessThan(0.05);
  });

  it("uses the catalog's measured figure (gpt-oss-120b 7.5 GiB) and lets OVERHEAD_MIB win over both", () => {
    const oss = catalogFacts("openai/gpt-oss-120b");
    const i = { tp: 1, ncclInProfile: false, maxNumBatchedTokens: 8192, maxNumSeqs: 1024 };
    expect(profilerOverhead(oss, i)).toMatchObject({ bytes: 7.5 * GiB, source: "catalog" });
    expect(profilerOverhead(oss, { ...i, override: 3 * GiB })).toMatchObject({ bytes: 3 * GiB, source: "setting" });
  });

  // vLLM's own logs (V0 prints the split): measured GiB, estimated bytes, tolerance
  const calibration: [string, number, number, number][] = [
    // vllm-project/vllm#10517 (0.6.4, RTX 3090, Llama-3.1-8B): non_torch 0.35 + activation 17.06 − 14.99 GiB at 20,000 tokens
    ["#10517 20,000 tokens", 0.35 + 2.07, NON_TORCH + 2_457_600_000, 0.1],
    // the same at 29,000 tokens: 0.35 + 17.98 − 14.99
    ["#10517 29,000 tokens", 0.35 + 2.99, NON_TORCH + 29_000 * 2 * 61_440, 0.1],
    // and at 35,000, where chunked prefill (context > 32K) profiled 512 tokens: 0.35 + 15.05 − 14.99
    ["#10517 512 tokens (chunked)", 0.35 + 0.06, NON_TORCH + 512 * 2 * 61_440, 0.25],
  ];
  it.each(calibration)("%s: measured %s GiB, estimated within the tolerance", (_n, measured, estimated, tolerance) => {
    expect(Math.abs(estimated / GiB - measured) / measured).toBeLessThan(tolerance);
  });
});

describe("the KV an unpinned seat will get", () => {
  it("Llama-3.1-8B alone on a 24 GiB card at 0.9 with V1's small-card defaults: 5.25 GiB — 32,768 tokens fit, 131,072 do not", () => {
    // 0.9 × 24 GiB = 23,192,823,398.4 − weights 15 GiB (16,106,127,360) − overhead 1,450,442,752
    const overhead = profilerOverhead(llama, { tp: 1, ncclInProfile: false, maxNumBatchedTokens: 2048, maxNumSeqs: 256 }).bytes;
    const kv = estimatedKv({ totalBytes: 24 * GiB, utilization: 0.9, weightsPerGpu: llama.weightsBytes ?? 0, overhead });
    expect(kv).toBe(5_636_253_286);
    const need = (len: number) => {
      const r = requestKv(llama, { maxModelLen: len, maxNumBatchedTokens: 2048 });
      if (!r.ok) throw new Error(r.problem.message);
      return requiredForRequest(r.kv.requestBytes, 1.25, GiB / 2);
    };
    // 32 × 2 × 8 × 128 × 2 = 131,072 B/token: 32,768 tokens = 4 GiB → 5 GiB; 131,072 = 16 GiB → 20 GiB
    expect(need(32_768)).toBe(5 * GiB);
    expect(need(32_768)).toBeLessThanOrEqual(kv);
    expect(need(131_072)).toBe(20 * GiB);
    expect(need(131_072)).toBeGreaterThan(kv);
  });

  it("reproduces vLLM's figures for gpt-oss-120b on an H100 (79.19 GiB CUDA total)", () => {
    const oss = catalogFacts("openai/gpt-oss-120b");
    const at = (utilization: number) =>
      estimatedKv({ totalBytes: 79.19 * GiB, utilization, weightsPerGpu: oss.weightsBytes ?? 0, overhead: oss.overheadBytes ?? 0 }) / GiB;
    // #23278: "Available KV cache memory: -2.14 GiB" at 0.9; #27508: 1.71 GiB at 0.95
    expect(Math.abs(at(0.9) - -2.14)).toBeLessThan(0.1);
    expect(Math.abs(at(0.95) - 1.71)).toBeLessThan(0.1);
    // and 131,072 tokens need 4.79 GiB: 18 × 32,768 × (8,192 + 521) = 5,139,136,512 B — refused at 0.95 too
    const r = requestKv(oss, { maxModelLen: 131_072, maxNumBatchedTokens: 8192 });
    expect(r.ok && r.kv.requestBytes).toBe(5_139_136_512);
  });

  it("subtracts the graph estimate inside the budget from v0.21.0 on (PR #38284)", () => {
    expect(
      estimatedKv({ totalBytes: 10 * GiB, utilization: 0.5, weightsPerGpu: 1 * GiB, overhead: 1 * GiB, graphsInBudget: 512 * MiB }),
    ).toBe(2.5 * GiB);
  });
});

describe("what a capture outside the budget has (before 0.21)", () => {
  // total, utilization, graphs, context, neighbours, activation freed → outside, free, short
  const table: [string, number, number, number, number, number, number, number, number, number][] = [
    [
      "0.9 of 24 GiB: 2.4 GiB − 0.5 context + 0.25 activation",
      24 * GiB,
      0.9,
      GiB,
      512 * MiB,
      0,
      256 * MiB,
      Math.floor(0.1 * 24 * GiB),
      Math.floor(0.1 * 24 * GiB) - 256 * MiB,
      0,
    ],
    [
      "0.98 of 24 GiB: 0.48 GiB − 0.5 context: 0.27 GiB short of 0.25 GiB graphs",
      24 * GiB,
      0.98,
      256 * MiB,
      512 * MiB,
      0,
      0,
      Math.floor(0.02 * 24 * GiB),
      Math.floor(0.02 * 24 * GiB) - 512 * MiB,
      256 * MiB - (Math.floor(0.02 * 24 * GiB) - 512 * MiB),
    ],
    // (1 − 0.9) is 0.0999… in floating point: one byte under 8 GiB
    ["a 4 GiB neighbour on the card", 80 * GiB, 0.9, GiB, 512 * MiB, 4 * GiB, 0, 8 * GiB - 1, 8 * GiB - 1 - 512 * MiB - 4 * GiB, 0],
  ];
  it.each(table)("%s", (_n, totalBytes, utilization, graphBytes, contextBytes, othersBytes, activationBytes, outside, free, short) => {
    expect(graphHeadroom({ totalBytes, utilization, graphBytes, contextBytes, othersBytes, activationBytes })).toEqual({
      outside,
      free,
      needed: graphBytes,
      short,
    });
  });

  it("defaults the booting seat's own CUDA context to 512 MiB", () => {
    expect(CONTEXT_OVERHEAD_DEFAULT).toBe(512 * MiB);
  });
});
