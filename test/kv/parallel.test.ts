// engine/parallel facts: what vLLM refuses at load (verify_with_parallel_config, QKVParallelLinear,
// gated_delta_net_state_shape), how get_pp_indices splits layers, and the weights per card.
import { describe, expect, it } from "vitest";
import { cardsPerSeat, parallelProblems, ppPartitionOf, ppStages, stageWeights, validTensorParallel } from "../../src/kv/parallel.js";
import { GiB } from "../../src/units/bytes.js";
import { catalogFacts, configFacts } from "./config-fixtures.js";

describe("tensor parallel as vLLM checks it", () => {
  // model, TP, problems (check names)
  const table: [string, number, string[]][] = [
    ["phi-4", 1, []],
    ["phi-4", 2, []], // 40 / 2 heads, 10 / 2 KV heads
    ["phi-4", 4, ["kv-heads"]], // 40 / 4 = 10 fine, but 10 KV heads % 4 = 2 and 4 does not divide 10
    ["phi-4", 5, []],
    ["phi-4", 8, ["kv-heads"]], // 40 / 8 = 5, but 8 < 10 KV heads and 10 % 8 = 2
    ["phi-4", 10, []],
    ["phi-4", 20, []], // TP ≥ KV heads: 20 % 10 = 0, each rank one replicated head
    ["qwen3-8b", 3, ["attention-heads", "kv-heads"]], // 32 % 3 = 2; 8 % 3 = 2
    ["qwen3-8b", 8, []],
    ["qwen3-8b", 16, []], // 16 ≥ 8 KV heads and 16 % 8 = 0: replicated
    ["qwen3-8b", 12, ["attention-heads", "kv-heads"]], // 32 % 12; 12 % 8
    ["deepseek-v3", 8, []], // MLA: only the 128 heads count
    ["deepseek-v3", 6, ["attention-heads"]],
    ["qwen3-next-80b-a3b-instruct", 4, []], // 16 heads, 2 KV (4 % 2 = 0), linear 16 key / 32 value heads
    ["qwen3-next-80b-a3b-instruct", 32, ["attention-heads", "linear-heads"]], // 16 heads, 16 linear key heads
  ];
  it.each(table)("%s at TP %i: %j", (name, tp, checks) => {
    expect(parallelProblems(configFacts(name), tp, 1).map((p) => p.check)).toEqual(checks);
  });

  it("says what vLLM says and which TP would work", () => {
    const [heads, kv] = parallelProblems(configFacts("qwen3-8b"), 3, 1);
    expect(heads?.message).toBe(
      "32 attention heads are not divisible by tensor parallel size 3: vLLM refuses to start (verify_with_parallel_config)",
    );
    expect(kv?.message).toMatch(/8 KV heads neither divisible by tensor parallel size 3 nor dividing it/);
    expect(heads?.fix).toBe("use --tensor-parallel-size 2, 4, 8, 16 (or 1)");
    expect(parallelProblems(configFacts("phi-4"), 4, 1)[0]?.fix).toBe("use --tensor-parallel-size 2, 5, 10 (or 1)");
    expect(validTensorParallel(configFacts("phi-4"))).toEqual([1, 2, 5, 10]);
  });

  it("refuses a size that is not a whole number ≥ 1, and more PP stages than layers", () => {
    expect(parallelProblems(configFacts("qwen3-8b"), 0, 1).map((p) => p.check)).toEqual(["size"]);
    expect(parallelProblems(configFacts("qwen3-8b"), 1, 1.5).map((p) => p.check)).toEqual(["size"]);
    expect(parallelProblems(configFacts("qwen3-8b"), 1, 37).map((p) => p.check)).toEqual(["pp-layers"]);
    expect(parallelProblems(configFacts("qwen3-8b"), 1, 36)).toEqual([]);
  });
});

describe("pipeline parallel: get_pp_indices", () => {
  const table: [number, number, number[]][] = [
    [36, 2, [18, 18]],
    [62, 2, [31, 31]],
    [61, 4, [15, 15, 16, 15]], // remainder 1 → partitions[-2]
    [10, 4, [2, 3, 3, 2]], // remainder 2 → partitions[-2], [-3]
    [11, 4, [3, 3, 3, 2]], // remainder 3 → partitions[-2], [-3], [-4]
    [48, 1, [48]],
  ];
  it.each(table)("%i layers over %i stages: %j", (layers, pp, sizes) => {
    const stages = ppStages(layers, pp);
    expect(stages.map(([s, e]) => e - s)).toEqual(sizes);
    expect(stages.at(-1)?.[1]).toBe(layers);
  });

  it("needs TP × PP cards", () => {
    expect(cardsPerSeat(2, 2)).toBe(4);
    expect(cardsPerSeat(4, 1)).toBe(4);
    expect(cardsPerSeat(1, 2)).toBe(2);
  });
});

describe("weights per card", () => {
  it("splits by TP without PP", () => {
    expect(stageWeights(16 * GiB, catalogFacts("Qwen/Qwen3-8B"), 2, 1)).toMatchObject({ perGpu: 8 * GiB, stages: [8 * GiB] });
  });

  it("Qwen3-8B at PP 2: each stage half the body, the first the embedding, the last the LM head", () => {
    // embedding = LM head = 151,936 × 4,096 × 2 B = 1,244,659,712 B (untied)
    // body = 16,380,854,272 − 2 × 1,244,659,712 = 13,891,534,848 B → 6,945,767,424 per stage
    const facts = configFacts("qwen3-8b");
    const w = stageWeights(16_380_854_272, facts, 1, 2);
    expect(w.stages).toEqual([6_945_767_424 + 1_244_659_712, 6_945_767_424 + 1_244_659_712]);
    expect(w.perGpu).toBe(8_190_427_136);
  });

  it("gives a tied LM head to the last stage as its own copy under PP", () => {
    const facts = { layers: 4, vocabSize: 1000, hiddenSize: 100, tieWordEmbeddings: true };
    // embedding 1000 × 100 × 2 = 200,000 B; body 1,000,000 − 200,000 = 800,000
    expect(stageWeights(1_000_000, facts, 1, 1).stages).toEqual([1_000_000]);
    expect(stageWeights(1_000_000, facts, 1, 2).stages).toEqual([600_000, 600_000]);
  });
});

describe("VLLM_PP_LAYER_PARTITION (get_pp_indices)", () => {
  it("sets the layers per stage, and vLLM refuses a partition of the wrong length or sum", () => {
    expect(ppPartitionOf("16,32", 2, 48)).toEqual({ ok: true, partition: [16, 32] });
    expect(ppStages(48, 2, [16, 32])).toEqual([
      [0, 16],
      [16, 48],
    ]);
    expect(ppPartitionOf("16,30", 2, 48)).toMatchObject({
      ok: false,
      problem: { check: "pp-partition", message: expect.stringContaining("sums to 46") },
    });
    expect(ppPartitionOf("48", 2, 48)).toMatchObject({ ok: false, problem: { message: expect.stringContaining("1 stages") } });
    expect(ppPartitionOf("a,b", 2, 48)).toMatchObject({
      ok: false,
      problem: { message: expect.stringContaining("Invalid partition string") },
    });
  });

  it("puts the weights on the stages as partitioned: 16 layers on the first card, 32 on the second", () => {
    const f = catalogFacts("Qwen/Qwen3-8B");
    const even = stageWeights(36 * GiB, { ...f, layers: 48 }, 1, 2);
    const uneven = stageWeights(36 * GiB, { ...f, layers: 48 }, 1, 2, [16, 32]);
    expect(uneven.stages[0]).toBeLessThan(even.stages[0] as number);
    expect(uneven.stages[1]).toBeGreaterThan(even.stages[1] as number);
  });
});
