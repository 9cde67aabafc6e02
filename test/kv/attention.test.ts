// The KV one max-length request needs, per GPU, worked by hand from vLLM's own functions
// (vllm/v1/kv_cache_interface.py max_memory_usage_bytes, vllm/v1/core/kv_cache_utils.py
// _max_memory_usage_bytes_from_groups and the layer grouping). Block size 16 unless said.
import { describe, expect, it } from "vitest";
import { estimateMaxModelLen, requestKv, requiredForRequest, type KvInputs, type RequestKv } from "../../src/kv/attention.js";
import { perTokenOfModel } from "../../src/kv/bytes.js";
import type { ModelFacts } from "../../src/kv/facts.js";
import { GiB } from "../../src/units/bytes.js";
import { catalogFacts, configFacts } from "./config-fixtures.js";
import { pack } from "./fixtures.js";

function kv(facts: ModelFacts, input: Partial<KvInputs> & { maxModelLen: number }): RequestKv {
  const r = requestKv(facts, { maxNumBatchedTokens: 8192, ...input });
  if (!r.ok) throw new Error(r.problem.message);
  return r.kv;
}

const half = GiB / 2;
const required = (bytes: number) => requiredForRequest(bytes, 1.25, half);

describe("full attention: the contract's dense formula", () => {
  it("Qwen3-8B at 40,960: 36 × 2,560 blocks × 65,536 B = 5.625 GiB, 7.5 GiB at 1.25", () => {
    // page = 16 tokens × 2 × 8 KV heads × 128 × 2 B = 65,536 B; cdiv(40,960, 16) = 2,560 blocks
    const r = kv(catalogFacts("Qwen/Qwen3-8B"), { maxModelLen: 40_960 });
    expect(r.requestBytes).toBe(36 * 2560 * 65_536);
    expect(r.requestBytes).toBe(147_456 * 40_960);
    expect(required(r.requestBytes)).toBe(7.5 * GiB);
    expect(r.perKind).toEqual([{ kind: "full", count: 36, slots: 36, blocks: 2560, bytes: 6_039_797_760 }]);
    expect(r.hybrid).toBe(false);
  });

  it("rounds the context up to whole blocks as vLLM does: 40,961 tokens take 2,561 blocks", () => {
    expect(kv(catalogFacts("Qwen/Qwen3-8B"), { maxModelLen: 40_961 }).requestBytes).toBe(36 * 2561 * 65_536);
  });

  it("equals perTokenOfModel × max_context for every full-attention catalog model, at TP 1 and 2", () => {
    const models = Object.values(pack.models().models);
    let checked = 0;
    for (const m of models) {
      const facts = catalogFacts(m.id);
      if (facts.layerKinds.some((k) => k !== "full") || m.max_context % 16 !== 0) continue;
      for (const tp of [1, 2]) {
        const dense = perTokenOfModel(m, tp, undefined);
        expect(kv(facts, { maxModelLen: m.max_context, tp }).requestBytes, `${m.id} TP ${tp}`).toBe((dense?.bytes ?? 0) * m.max_context);
      }
      checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(20);
  });

  it("Mistral-Small-3.1 at 131,072 with head_dim 128: 20 GiB, not the 25 GiB of 5120 / 32 = 160", () => {
    // 40 layers × 2 × 8 × 128 × 2 B = 163,840 B/token × 131,072 = 20 GiB; 160 would give 204,800 B/token = 25 GiB
    const facts = configFacts("mistral-small-3.1-24b-instruct-2503");
    expect(kv(facts, { maxModelLen: 131_072 }).requestBytes).toBe(20 * GiB);
    expect(kv({ ...facts, headDim: 160 }, { maxModelLen: 131_072 }).requestBytes).toBe(25 * GiB);
    expect(required(20 * GiB)).toBe(25 * GiB);
  });

  it("phi-4 at TP 2: 5 KV heads per GPU, 1.5625 GiB at 16,384", () => {
    // 40 × 2 × 5 × 128 × 2 = 102,400 B/token × 16,384 = 1,677,721,600 B
    expect(kv(configFacts("phi-4"), { maxModelLen: 16_384, tp: 2 }).requestBytes).toBe(1_677_721_600);
  });
});

describe("sliding window (SlidingWindowSpec: (cdiv(min(window − 1 + batched, len), 16) + 1) pages)", () => {
  const gemma = configFacts("gemma-3-27b-it");
  it("Gemma-3-27B at 131,072 and 8,192 batched tokens: 14.23 GiB → 18 GiB at 1.25, not 77.5 GiB", () => {
    // page: 16 × 2 × 16 KV heads × 128 × 2 B = 131,072 B
    // full:    cdiv(131,072, 16) = 8,192 blocks
    // sliding: min(1,023 + 8,192, 131,072) = 9,215 tokens → cdiv(9,215, 16) + 1 = 576 + 1 = 577 blocks
    // groups:  10 full, 52 sliding: 52 ≥ 1.5 × 10 → group_size 10; 1 full group + cdiv(52, 10) = 6 sliding
    //          groups (8 padding slots)
    // bytes:   10 × 131,072 × (8,192 + 6 × 577) = 10 × 131,072 × 11,654 = 15,275,130,880 B = 14.226 GiB
    const r = kv(gemma, { maxModelLen: 131_072 });
    expect(r.requestBytes).toBe(15_275_130_880);
    expect([r.groupSize, r.groups, r.pageBytes]).toEqual([10, 7, 131_072]);
    expect(r.perKind).toEqual([
      { kind: "sliding", count: 52, slots: 60, blocks: 577, bytes: 60 * 577 * 131_072 },
      { kind: "full", count: 10, slots: 10, blocks: 8192, bytes: 10 * GiB },
    ]);
    // 1.25 × 14.226 = 17.78 GiB → 18 GiB; every layer full: 62 GiB × 1.25 = 77.5 GiB
    expect(required(r.requestBytes)).toBe(18 * GiB);
    expect(required(62 * GiB)).toBe(77.5 * GiB);
  });

  it("Gemma-3-27B with vLLM's small-card budget of 2,048 batched tokens: 11.41 GiB → 14.5 GiB", () => {
    // sliding: 1,023 + 2,048 = 3,071 → cdiv(3,071, 16) + 1 = 192 + 1 = 193 blocks
    // 10 × 131,072 × (8,192 + 6 × 193) = 10 × 131,072 × 9,350 = 12,255,232,000 B
    const r = kv(gemma, { maxModelLen: 131_072, maxNumBatchedTokens: 2048 });
    expect(r.requestBytes).toBe(12_255_232_000);
    expect(required(r.requestBytes)).toBe(14.5 * GiB);
  });

  it("Gemma-3-27B with --disable-hybrid-kv-cache-manager: every layer keeps the context, 62 GiB", () => {
    const r = kv(gemma, { maxModelLen: 131_072, hybridKvCacheManager: false });
    expect(r.requestBytes).toBe(62 * GiB);
    expect(r.hybrid).toBe(false);
    expect(r.layers).toMatchObject({ full: 10, sliding: 52 });
  });

  it("a short context caps the window at max_model_len: Gemma-3-27B at 4,096", () => {
    // sliding: min(9,215, 4,096) = 4,096 → 256 + 1 = 257 blocks; full 256 blocks
    // 10 × 131,072 × (256 + 6 × 257) = 10 × 131,072 × 1,798 = 2,356,674,560 B
    expect(kv(gemma, { maxModelLen: 4096 }).requestBytes).toBe(2_356_674_560);
  });

  it("gpt-oss-20b at 131,072: 3.19 GiB → 4 GiB, half of the 6 GiB every layer full would take", () => {
    // page: 16 × 2 × 8 × 64 × 2 B = 32,768 B; 12 sliding (128) + 12 full: 12 < 1.5 × 12 → group_size 12
    // sliding: 127 + 8,192 = 8,319 → cdiv(8,319, 16) + 1 = 520 + 1 = 521 blocks; full 8,192 blocks
    // 12 × 32,768 × (8,192 + 521) = 12 × 32,768 × 8,713 = 3,426,091,008 B = 3.19 GiB
    const r = kv(configFacts("gpt-oss-20b"), { maxModelLen: 131_072 });
    expect(r.requestBytes).toBe(3_426_091_008);
    expect(required(r.requestBytes)).toBe(4 * GiB);
    expect(kv(configFacts("gpt-oss-20b"), { maxModelLen: 131_072, hybridKvCacheManager: false }).requestBytes).toBe(6 * GiB);
  });
});

describe("chunked local attention (ChunkedLocalAttentionSpec: cdiv(min(chunk + batched, len), 16) pages)", () => {
  const scout = configFacts("llama-4-scout-17b-16e-instruct");
  it("Llama-4-Scout at 1,048,576 (1M): 50.25 GiB → 63 GiB, not the 192 GiB of every layer full", () => {
    // page: 16 × 2 × 8 × 128 × 2 B = 65,536 B; 12 full + 36 chunked → group_size 12, 1 + 3 groups
    // full:    cdiv(1,048,576, 16) = 65,536 blocks
    // chunked: min(8,192 + 8,192, 1,048,576) = 16,384 → 1,024 blocks (no +1: chunks start on block boundaries)
    // 12 × 65,536 × (65,536 + 3 × 1,024) = 12 × 65,536 × 68,608 = 53,955,526,656 B = 50.25 GiB
    const r = kv(scout, { maxModelLen: 1_048_576 });
    expect(r.requestBytes).toBe(53_955_526_656);
    expect(required(r.requestBytes)).toBe(63 * GiB);
    expect(kv(scout, { maxModelLen: 1_048_576, chunkedLocalHybrid: false }).requestBytes).toBe(192 * GiB);
  });

  it("Llama-4-Scout at 1M on TP 8: one KV head per GPU, 6.28 GiB", () => {
    // page 16 × 2 × 1 × 128 × 2 = 8,192 B: 12 × 8,192 × 68,608 = 6,744,440,832 B
    expect(kv(scout, { maxModelLen: 1_048_576, tp: 8 }).requestBytes).toBe(6_744_440_832);
  });

  it("reproduces vLLM issue #19407: Scout TP 8 at its 10,485,760 default, hybrid off → 240.00 GiB, estimated 3,861,424", () => {
    // "(240.00 GiB KV cache is needed, which is larger than the available KV cache memory (88.38 GiB).
    //  Based on the available memory, the estimated maximum model length is 3861424."
    // 48 layers × cdiv(10,485,760, 16) = 655,360 blocks × 8,192 B = 257,698,037,760 B = 240 GiB
    const input = { tp: 8, chunkedLocalHybrid: false, maxNumBatchedTokens: 8192 };
    expect(kv(scout, { ...input, maxModelLen: 10_485_760 }).requestBytes).toBe(240 * GiB);
    // 3,861,424 tokens = 241,339 blocks × 48 × 8,192 B = 94,898,356,224 B = 88.3812 GiB ("88.38 GiB")
    expect(estimateMaxModelLen(scout, input, 94_898_356_224, 10_485_760)).toBe(3_861_424);
    expect(estimateMaxModelLen(scout, input, 94_898_356_224 - 1, 10_485_760)).toBe(3_861_408);
    expect(estimateMaxModelLen(scout, input, 100, 10_485_760)).toBe(0);
  });
});

describe("linear attention state (MambaSpec, page padded to the attention page)", () => {
  const next = configFacts("qwen3-next-80b-a3b-instruct");
  it("Qwen3-Next-80B-A3B at 262,144 with prefix caching: 6.28 GiB, a quarter of the dense 24 GiB", () => {
    // attention 1 token: 2 × 2 KV heads × 256 × 2 B = 2,048 B
    // state per layer: conv (4 − 1) × (128 × 16 × 2 + 128 × 32 = 8,192) × 2 B = 49,152 B
    //                  temporal 32 × 128 × 128 × 2 B = 1,048,576 B → 1,097,728 B
    // block (prefix caching): lcm(2,048, 16) × cdiv(cdiv(1,097,728, 2,048) = 536, 2,048) = 2,048 tokens
    // page 2,048 × 2,048 B = 4 MiB; full cdiv(262,144, 2,048) = 128 blocks; state "align" 2 blocks
    // 12 full + 36 linear → group_size 12, 1 + 3 groups: 12 × 4 MiB × (128 + 3 × 2) = 6,744,440,832 B
    const r = kv(next, { maxModelLen: 262_144 });
    expect([r.blockSize, r.pageBytes]).toEqual([2048, 4 * 1024 * 1024]);
    expect(r.requestBytes).toBe(6_744_440_832);
    expect(r.perKind).toEqual([
      { kind: "mamba", count: 36, slots: 36, blocks: 2, bytes: 36 * 2 * 4 * 1024 * 1024 },
      { kind: "full", count: 12, slots: 12, blocks: 128, bytes: 12 * 128 * 4 * 1024 * 1024 },
    ]);
    // every layer full attention: 48 × 2,048 × 262,144 = 24 GiB
    expect(48 * 2048 * 262_144).toBe(24 * GiB);
  });

  it("Qwen3-Next without prefix caching: 544-token blocks, one state slot, 6.04 GiB", () => {
    // block 16 × cdiv(1,097,728, 16 × 2,048) = 16 × 34 = 544; page 544 × 2,048 = 1,114,112 B
    // full cdiv(262,144, 544) = 482 blocks; state 1 block: 12 × 1,114,112 × (482 + 3) = 6,484,131,840 B
    const r = kv(next, { maxModelLen: 262_144, prefixCaching: false });
    expect([r.blockSize, r.pageBytes]).toEqual([544, 1_114_112]);
    expect(r.requestBytes).toBe(6_484_131_840);
  });

  it("refuses --disable-hybrid-kv-cache-manager on a linear-attention model, as vLLM does", () => {
    const r = requestKv(next, { maxModelLen: 4096, maxNumBatchedTokens: 2048, hybridKvCacheManager: false });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.problem.fix).toMatch(/remove --disable-hybrid-kv-cache-manager/);
  });
});

describe("MLA (MLAAttentionSpec) and KV dtypes", () => {
  const ds = configFacts("deepseek-v3");
  // dtype, bytes at 163,840 tokens, required at 1.25
  const table: [string | undefined, number, number][] = [
    // 61 × cdiv(163,840, 16) = 10,240 blocks × 16 × 576 × 2 B = 11,513,364,480 B (10.72 GiB → 13.5 GiB)
    [undefined, 11_513_364_480, 13.5 * GiB],
    ["auto", 11_513_364_480, 13.5 * GiB],
    // fp8: 576 B/token/layer → 5,756,682,240 B (5.36 GiB → 7 GiB)
    ["fp8", 5_756_682_240, 7 * GiB],
    ["fp8_e4m3", 5_756_682_240, 7 * GiB],
    // fp8_ds_mla: 656 B/token/layer → 61 × 163,840 × 656 = 6,556,221,440 B (6.11 GiB → 8 GiB)
    ["fp8_ds_mla", 6_556_221_440, 8 * GiB],
  ];
  it.each(table)("DeepSeek-V3 at 163,840, kv dtype %s: %i B", (dtype, bytes, req) => {
    const r = kv(ds, { maxModelLen: 163_840, kvCacheDtype: dtype });
    expect(r.requestBytes).toBe(bytes);
    expect(required(r.requestBytes)).toBe(req);
    expect(r.perKind[0]?.kind).toBe("mla");
  });

  it("does not split the MLA latent over TP", () => {
    expect(kv(ds, { maxModelLen: 163_840, tp: 8 }).requestBytes).toBe(11_513_364_480);
  });

  it("turns fp8 into fp8_ds_mla for sparse MLA (DeepSeek-V3.2)", () => {
    const v32 = { ...ds, mla: { kvLoraRank: 512, qkRopeHeadDim: 64, qkNopeHeadDim: 128, sparse: true } };
    expect(kv(v32, { maxModelLen: 163_840, kvCacheDtype: "fp8" }).kvDtype).toBe("fp8_ds_mla");
  });

  const qwen = catalogFacts("Qwen/Qwen3-8B");
  // dtype, bytes per token per layer (8 KV heads × 128)
  const dtypes: [string, number][] = [
    ["bfloat16", 4096], // 2 × 8 × 128 × 2
    ["fp8_e5m2", 2048], // 2 × 8 × 128 × 1
    ["int8_per_token_head", 2112], // 2 × 8 × 128 × 1 + 2 × 8 × 4 B of fp32 scales
    ["fp8_per_token_head", 2112],
    ["nvfp4", 1152], // 8 heads × 2 sides × (128 / 2 + 128 / 16 = 72) B
  ];
  it.each(dtypes)("Qwen3-8B, kv dtype %s: %i B per token per layer", (dtype, perLayer) => {
    const r = kv(qwen, { maxModelLen: 40_960, kvCacheDtype: dtype });
    expect(r.bytesPerTokenPerLayer).toBe(perLayer);
    expect(r.requestBytes).toBe(36 * perLayer * 40_960);
  });

  it("refuses to guess a layout it cannot size, and fp8_ds_mla on a model without MLA", () => {
    for (const d of ["turboquant_k8v4", "int4_per_token_head", "nvfp4_4over6", "q4_0"]) {
      const r = requestKv(qwen, { maxModelLen: 4096, maxNumBatchedTokens: 2048, kvCacheDtype: d });
      expect(r.ok, d).toBe(false);
      expect(!r.ok && r.problem.fix).toMatch(/KV_BYTES_PER_TOKEN/);
    }
    const r = requestKv(qwen, { maxModelLen: 4096, maxNumBatchedTokens: 2048, kvCacheDtype: "fp8_ds_mla" });
    expect(!r.ok && r.problem.message).toMatch(/MLA models/);
  });
});

describe("pipeline parallel: each stage sizes its own layers", () => {
  it("Qwen3-8B at PP 2: 18 layers per stage, half the KV per GPU", () => {
    const r = kv(catalogFacts("Qwen/Qwen3-8B"), { maxModelLen: 40_960, pp: 2 });
    expect(r.stages).toEqual([18 * 2560 * 65_536, 18 * 2560 * 65_536]);
    expect(r.requestBytes).toBe(2.8125 * GiB);
  });

  it("Gemma-3-27B at PP 2: 31 layers per stage, 5 slots per group on each → 7.11 GiB per GPU", () => {
    // stage 0 holds full layers 5, 11, 17, 23, 29 and 26 sliding; the six sliding groups (layers[i::6])
    // put 5, 5, 4, 4, 4, 4 of them there; stage 1: 4, 4, 5, 5, 4, 4 → group size 5 on both
    // 5 × 131,072 × (8,192 + 6 × 577) = 7,637,565,440 B
    const r = kv(configFacts("gemma-3-27b-it"), { maxModelLen: 131_072, pp: 2 });
    expect(r.stages).toEqual([7_637_565_440, 7_637_565_440]);
  });

  it("sizes the fullest stage when the layers do not split evenly: 61 MLA layers over PP 4", () => {
    // get_pp_indices(61, r, 4) → 15, 15, 16, 15 layers; stage 2: 16 × 10,240 × 18,432 B
    const r = kv(configFacts("deepseek-v3"), { maxModelLen: 163_840, pp: 4 });
    expect(r.stages).toEqual([15, 15, 16, 15].map((n) => n * 10_240 * 18_432));
    expect(r.requestBytes).toBe(16 * 10_240 * 18_432);
  });
});

describe("inputs vLLM would refuse", () => {
  it("is a problem, not a throw", () => {
    const facts = catalogFacts("Qwen/Qwen3-8B");
    for (const len of [0, -1, 1.5, Number.NaN]) {
      const r = requestKv(facts, { maxModelLen: len, maxNumBatchedTokens: 2048 });
      expect(r.ok, String(len)).toBe(false);
    }
    const r = requestKv({ ...facts, kvHeads: null, headDim: null }, { maxModelLen: 4096, maxNumBatchedTokens: 2048 });
    expect(!r.ok && r.problem.fix).toMatch(/kv_heads and head_dim/);
  });
});
