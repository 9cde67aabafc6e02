// Weights from a safetensors index or estimated from config.json (src/kv/weights.ts).
import { describe, expect, it } from "vitest";
import { factsFromHfJson } from "../../src/kv/hf-config.js";
import { estimateWeights, weightsFromIndex } from "../../src/kv/weights.js";
import { configFacts, configText } from "./config-fixtures.js";

function estimate(name: string): number {
  const r = estimateWeights(JSON.parse(configText(name)), configFacts(name));
  if (!r.ok) throw new Error(r.problem.message);
  return r.bytes;
}

describe("model.safetensors.index.json", () => {
  it("takes metadata.total_size", () => {
    expect(
      weightsFromIndex('{"metadata": {"total_size": 16381470720}, "weight_map": {}}', "models/q/model.safetensors.index.json"),
    ).toEqual({
      ok: true,
      bytes: 16_381_470_720,
      source: "index",
      formula: "metadata.total_size 16381470720",
    });
  });

  const bad: [string, string, string][] = [
    ["not JSON", "{metadata:", "(file)"],
    ["no metadata", '{"weight_map": {}}', "metadata.total_size"],
    ["total_size as text", '{"metadata": {"total_size": "16GB"}}', "metadata.total_size"],
    ["total_size zero", '{"metadata": {"total_size": 0}}', "metadata.total_size"],
    ["an array", "[]", "metadata.total_size"],
  ];
  it.each(bad)("is a problem when %s", (_n, text, field) => {
    const r = weightsFromIndex(text, "models/q/model.safetensors.index.json");
    expect(r.ok).toBe(false);
    expect(!r.ok && r.problem).toMatchObject({ file: "models/q/model.safetensors.index.json", field });
    expect(!r.ok && r.problem.fix).toMatch(/WEIGHTS_MIB/);
  });
});

describe("estimated from config.json: every expert resident", () => {
  it("Qwen3-8B: 8,190,427,136 parameters × 2 B", () => {
    // embed + LM head 2 × 151,936 × 4,096 = 1,244,659,712
    // attention 36 × (4,096 × 4,096 + 2 × 4,096 × 1,024 + 4,096 × 4,096) = 1,509,949,440
    // MLP 36 × 3 × 4,096 × 12,288 = 5,435,817,984 → 8,190,427,136 (the model card's 8.19B)
    expect(estimate("qwen3-8b")).toBe(16_380_854_272);
  });

  it("gpt-oss-20b: mxfp4 experts at 4.25 bits, the rest bf16 → 12.8 GiB", () => {
    // experts 24 × 32 × 3 × 2,880 × 2,880 = 19,110,297,600 × 0.53125 B = 10,152,345,600
    // bf16: embed + head 1,158,266,880 + attention 24 × 26,542,080 = 637,009,920 + router 2,211,840
    //       = 1,797,488,640 × 2 = 3,594,977,280 → 13,747,322,880 B
    expect(estimate("gpt-oss-20b")).toBe(13_747_322_880);
  });

  it("DeepSeek-V3: fp8 block-quantised linear layers, bf16 embeddings → 626.7 GiB", () => {
    // MLA attention 61 × 187,105,280 = 11,413,422,080; 3 dense MLPs 1,189,085,184;
    // 58 MoE layers × (256 experts × 44,040,192 + shared 44,040,192 + router 1,835,008)
    // linear 669,172,039,680 × 1 B + embeddings 1,853,358,080 × 2 B
    expect(estimate("deepseek-v3")).toBe(672_878_755_840);
  });

  it("Qwen3-Next-80B-A3B: 79.67B parameters incl. 512 experts per layer", () => {
    expect(estimate("qwen3-next-80b-a3b-instruct")).toBe(159_348_162_560);
  });

  it("Llama-4-Scout: 16 routed + 1 shared expert per layer, 107.8B language-model parameters", () => {
    expect(estimate("llama-4-scout-17b-16e-instruct")).toBe(215_538_728_960);
  });

  const base = { num_hidden_layers: 2, num_attention_heads: 8, hidden_size: 1024, intermediate_size: 4096, vocab_size: 1000 };
  // quantization_config, bytes per linear parameter
  const quant: [string, Record<string, unknown>, number][] = [
    ["AWQ 4-bit, group 128", { quant_method: "awq", bits: 4, group_size: 128 }, 0.5 + 2.5 / 128],
    ["GPTQ 8-bit per channel", { quant_method: "gptq", bits: 8, group_size: -1 }, 1],
    ["FP8", { quant_method: "fp8" }, 1],
    ["ModelOpt NVFP4", { producer: { name: "modelopt" }, quantization: { quant_algo: "NVFP4" } }, 0.5625],
    ["compressed-tensors W4A16", { quant_method: "compressed-tensors", config_groups: { g: { weights: { num_bits: 4 } } } }, 0.5],
  ];
  it.each(quant)("%s: %s B per linear parameter", (_n, q, perParam) => {
    const json = { ...base, quantization_config: q };
    const r = factsFromHfJson(json, "c.json");
    if (!r.ok) throw new Error(r.problem.message);
    const w = estimateWeights(json, r.facts);
    // linear 2 × (4 × 1,024² + 3 × 1,024 × 4,096) = 33,554,432; embed + head 2 × 1,000 × 1,024 = 2,048,000
    expect(w.ok && w.bytes).toBe(Math.round(33_554_432 * perParam + 2_048_000 * 2));
  });

  it("is a problem when it cannot estimate", () => {
    const unknown = { ...base, quantization_config: { quant_method: "hqq" } };
    const r = factsFromHfJson(unknown, "models/x/config.json");
    if (!r.ok) throw new Error(r.problem.message);
    const w = estimateWeights(unknown, r.facts);
    expect(!w.ok && w.problem).toMatchObject({
      field: "quantization_config",
      message: "models/x/config.json: kvgate cannot estimate the size of hqq weights",
    });
    const noVocab = { num_hidden_layers: 2, num_attention_heads: 8, hidden_size: 1024 };
    const r2 = factsFromHfJson(noVocab, "c.json");
    const w2 = r2.ok ? estimateWeights(noVocab, r2.facts) : null;
    expect(w2 && !w2.ok && w2.problem.field).toBe("hidden_size");
  });
});
