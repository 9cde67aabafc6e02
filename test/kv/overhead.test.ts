// The KV an unpinned seat gets (utilization × total − weights − overhead) and the overhead estimate,
// against the vLLM logs it is calibrated on (src/kv/overhead.ts cites them).
import { describe, expect, it } from "vitest";
import { requestKv, requiredForRequest } from "../../src/kv/attention.js";
import {
  CONTEXT_OVERHEAD_DEFAULT,
  CUDA_GRAPH_ESTIMATE,
  defaultBatchLimits,
  estimatedKv,
  graphHeadroom,
  profilerOverhead,
} from "../../src/kv/overhead.js";
import { GiB, MiB } from "../../src/units/bytes.js";
import { catalogFacts } from "./config-fixtures.js";

// Llama-3.1-8B: hidden 4,096, MLP 14,336, vocab 128,256
const llama = catalogFacts("meta-llama/Llama-3.1-8B-Instruct");
const NON_TORCH = Math.round(1.8 * GiB); // 1,932,735,283

describe("profiler overhead per seat", () => {
  it("Llama-3.1-8B with vLLM's small-card defaults (2,048 tokens, 256 sequences): 2.28 GiB", () => {
    // activation 2,048 × 2 B × (8 × 4,096 + 2 × 14,336) = 2,048 × 122,880 = 251,658,240
    // sampler 256 × 128,256 × 8 B = 262,668,288; non-torch 1.8 GiB
    const o = profilerOverhead(llama, { tp: 1, maxNumBatchedTokens: 2048, maxNumSeqs: 256 });
    expect([o.nonTorch, o.activation, o.sampler]).toEqual([NON_TORCH, 251_658_240, 262_668_288]);
    expect(o.bytes).toBe(2_447_061_811);
    expect(o.source).toBe("estimate");
  });

  it("Llama-3.1-8B with the ≥ 70 GiB defaults (8,192 tokens, 1,024 sequences): 3.72 GiB", () => {
    // activation 8,192 × 122,880 = 1,006,632,960; sampler 1,024 × 128,256 × 8 = 1,050,673,152
    const o = profilerOverhead(llama, { tp: 1, maxNumBatchedTokens: 8192, maxNumSeqs: 1024 });
    expect(o.bytes).toBe(NON_TORCH + 1_006_632_960 + 1_050_673_152);
  });

  it("counts 3.6 GiB of non-torch memory at TP ≥ 2 (PR #10511: 3.58 GiB at TP 2)", () => {
    expect(profilerOverhead(llama, { tp: 2, maxNumBatchedTokens: 2048, maxNumSeqs: 256 }).nonTorch).toBe(Math.round(3.6 * GiB));
  });

  it("uses the catalog's measured figure (gpt-oss-120b 7.5 GiB) and lets OVERHEAD_MIB win over both", () => {
    const oss = catalogFacts("openai/gpt-oss-120b");
    expect(profilerOverhead(oss, { tp: 1, maxNumBatchedTokens: 8192, maxNumSeqs: 1024 })).toMatchObject({
      bytes: 7.5 * GiB,
      source: "catalog",
    });
    expect(profilerOverhead(oss, { tp: 1, maxNumBatchedTokens: 8192, maxNumSeqs: 1024, override: 3 * GiB })).toMatchObject({
      bytes: 3 * GiB,
      source: "setting",
    });
  });

  // Calibration: what the estimate says against what vLLM logged (activation + sampler only where the
  // log splits it out). measured GiB, estimated bytes
  const calibration: [string, number, number][] = [
    // PR #10511: Meta-Llama-3-8B on an H100, V0 profile of 8,192 tokens and 256 sequences: activation 1.26 GiB
    ["PR #10511 activation peak", 1.26, 1_006_632_960 + 262_668_288],
    // PR #10511: non_torch_memory 1.79 GiB at TP 1
    ["PR #10511 non-torch TP 1", 1.79, NON_TORCH],
    ["PR #10511 non-torch TP 2", 3.58, Math.round(3.6 * GiB)],
  ];
  it.each(calibration)("%s: measured %s GiB, estimated within 10 %%", (_n, measured, estimated) => {
    expect(estimated / GiB / measured).toBeGreaterThan(0.9);
    expect(estimated / GiB / measured).toBeLessThan(1.1);
  });
});

describe("the KV an unpinned seat will get", () => {
  it("Llama-3.1-8B alone on a 24 GiB card at 0.9: 4.32 GiB — 16,384 tokens fit, 131,072 do not", () => {
    // 0.9 × 24 GiB = 23,192,823,398.4 − weights 15 GiB (16,106,127,360) − overhead 2,447,061,811
    const overhead = profilerOverhead(llama, { tp: 1, ...defaultBatchLimits(24 * GiB) }).bytes;
    const kv = estimatedKv({ totalBytes: 24 * GiB, utilization: 0.9, weightsPerGpu: llama.weightsBytes ?? 0, overhead });
    expect(kv).toBe(4_639_634_227);
    const need = (len: number) => {
      const r = requestKv(llama, { maxModelLen: len, maxNumBatchedTokens: 2048 });
      if (!r.ok) throw new Error(r.problem.message);
      return requiredForRequest(r.kv.requestBytes, 1.25, GiB / 2);
    };
    // 32 × 2 × 8 × 128 × 2 = 131,072 B/token: 16,384 tokens = 2 GiB → 2.5 GiB; 131,072 = 16 GiB → 20 GiB
    expect(need(16_384)).toBe(2.5 * GiB);
    expect(need(16_384)).toBeLessThanOrEqual(kv);
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

  it("subtracts vLLM's graph estimate inside the budget from v0.21.0 on", () => {
    expect(
      estimatedKv({
        totalBytes: 10 * GiB,
        utilization: 0.5,
        weightsPerGpu: 1 * GiB,
        overhead: 1 * GiB,
        graphsInBudget: CUDA_GRAPH_ESTIMATE,
      }),
    ).toBe(2 * GiB);
  });
});

describe("graph headroom, batch defaults, the booting seat's context", () => {
  it("(1 − utilization) × total against 1 GiB of CUDA graphs", () => {
    expect(graphHeadroom({ totalBytes: 24 * GiB, utilization: 0.9 })).toEqual({
      outside: Math.floor(0.1 * 24 * GiB),
      needed: GiB,
      short: 0,
    });
    // 0.97 × 24 GiB leaves 0.72 GiB: 0.28 GiB short
    const g = graphHeadroom({ totalBytes: 24 * GiB, utilization: 0.97 });
    expect(g.short).toBe(GiB - Math.floor(0.03 * 24 * GiB));
  });

  it("budgets 8,192 tokens on ≥ 70 GiB cards that are not A100s, else 2,048", () => {
    expect(defaultBatchLimits(80 * GiB, "NVIDIA H100 80GB HBM3")).toEqual({ maxNumBatchedTokens: 8192, maxNumSeqs: 1024 });
    expect(defaultBatchLimits(80 * GiB, "NVIDIA A100-SXM4-80GB")).toEqual({ maxNumBatchedTokens: 2048, maxNumSeqs: 256 });
    expect(defaultBatchLimits(24 * GiB)).toEqual({ maxNumBatchedTokens: 2048, maxNumSeqs: 256 });
  });

  it("defaults the booting seat's own CUDA context to 512 MiB", () => {
    expect(CONTEXT_OVERHEAD_DEFAULT).toBe(512 * MiB);
  });
});
