import { describe, expect, it } from "vitest";
import { loadModelCatalog, lookupModel } from "../../src/rules/models.js";
import { bytesPerToken, headDimOf, perTokenOfModel, requiredKv } from "../../src/kv/bytes.js";
import { toModelSpec } from "../../src/config/policy.js";
import { GiB, pack, voices } from "./fixtures.js";

const catalog = pack.models();
const model = (id: string) => {
  const m = catalog.models[id];
  if (!m) throw new Error(`no ${id} in the catalog`);
  return m;
};

describe("rules/models.yaml", () => {
  it("holds every family the issue lists", () => {
    for (const id of [
      "Qwen/Qwen3-0.6B",
      "Qwen/Qwen3-1.7B",
      "Qwen/Qwen3-4B",
      "Qwen/Qwen3-8B",
      "Qwen/Qwen3-14B",
      "Qwen/Qwen3-32B",
      "Qwen/Qwen3-30B-A3B",
      "Qwen/Qwen3-4B-Instruct-2507",
      "Qwen/Qwen3-30B-A3B-Instruct-2507",
      "Qwen/Qwen2.5-7B-Instruct",
      "Qwen/Qwen2.5-Coder-7B-Instruct",
      "Qwen/Qwen2.5-Coder-14B-Instruct",
      "Qwen/Qwen2.5-Coder-32B-Instruct",
      "meta-llama/Llama-3.1-8B-Instruct",
      "meta-llama/Llama-3.2-3B-Instruct",
      "mistralai/Mistral-7B-Instruct-v0.3",
      "mistralai/Mistral-Nemo-Instruct-2407",
      "microsoft/phi-4",
      "google/gemma-2-2b-it",
      "google/gemma-2-9b-it",
      "google/gemma-2-27b-it",
      "deepseek-ai/DeepSeek-V2-Lite-Chat",
    ])
      expect(catalog.models[id], id).toBeDefined();
  });

  it("gives Gemma-2 its interleaved 4,096-token window (even layers sliding), so vLLM's cap and window are sized", () => {
    for (const id of ["google/gemma-2-2b-it", "google/gemma-2-9b-it", "google/gemma-2-27b-it"])
      expect(model(id)).toMatchObject({ model_type: "gemma2", layer_pattern: "SF", sliding_window: 4096 });
  });

  it("refuses a broken catalog with the path of the problem", () => {
    expect(() => loadModelCatalog("models:\n  x/y: { layers: 0, max_context: 1, weights: 1GiB }\n", "rules/models.yaml")).toThrow(
      /models\.x\/y\.layers/,
    );
    expect(() =>
      loadModelCatalog("models:\n  x/y: { layers: 2, max_context: 1, weights: 1GiB, colour: red }\n", "rules/models.yaml"),
    ).toThrow(/colour/);
  });
});

describe("bytes per token per GPU", () => {
  const table: [string, number, string | undefined, number][] = [
    // model, TP, kv_cache_dtype, bytes per token per GPU
    ["Qwen/Qwen3-8B", 1, undefined, 147_456], // the contract's example: 2 × 36 × 8 × 128 × 2
    ["Qwen/Qwen3-8B", 2, undefined, 73_728], // TP 2 halves it
    ["Qwen/Qwen3-8B", 1, "fp8", 73_728], // fp8 halves it
    ["Qwen/Qwen3-8B", 1, "fp8_e4m3", 73_728],
    ["Qwen/Qwen3-8B", 16, undefined, 18_432], // never below one KV head per GPU
    ["mistralai/Mistral-Nemo-Instruct-2407", 1, undefined, 163_840], // head_dim 128, not 5120/32 = 160
    ["google/gemma-2-27b-it", 1, undefined, 376_832], // head_dim 128, not 4608/32 = 144
    ["Qwen/Qwen2.5-Coder-14B-Instruct", 1, undefined, 196_608], // hidden 5120 / 40 heads = 128
    ["meta-llama/Llama-3.2-3B-Instruct", 1, undefined, 114_688],
    ["deepseek-ai/DeepSeek-V2-Lite-Chat", 1, undefined, 31_104], // MLA: 27 × (512 + 64) × 2
    ["deepseek-ai/DeepSeek-V2-Lite-Chat", 2, undefined, 31_104], // not split by TP
  ];
  it.each(table)("%s at TP %i, kv dtype %s: %i B/token", (id, tp, dtype, bytes) => {
    expect(perTokenOfModel(model(id), tp, dtype)?.bytes).toBe(bytes);
  });

  it("uses head_dim over hidden_size / heads", () => {
    expect(headDimOf(model("mistralai/Mistral-Nemo-Instruct-2407"))).toBe(128);
    expect(headDimOf(model("Qwen/Qwen2.5-7B-Instruct"))).toBe(128);
  });

  it("lets the service's KV_BYTES_PER_TOKEN win", () => {
    const s = voices({ KV_BYTES_PER_TOKEN: "100000" });
    expect(bytesPerToken(model("Qwen/Qwen3-8B"), s)).toMatchObject({ bytes: 100_000, source: "setting" });
    expect(bytesPerToken(null, s)?.bytes).toBe(100_000);
    expect(bytesPerToken(null, voices())).toBeNull();
  });

  it("requires ceil(factor × tokens × b / round) × round: Qwen3-8B at 40,960 → 7.5 GiB", () => {
    expect(requiredKv({ factor: 1.25, maxModelLen: 40_960, bytesPerToken: 147_456, roundBytes: GiB / 2 })).toBe(8_053_063_680);
    expect(requiredKv({ factor: 1.07, maxModelLen: 40_960, bytesPerToken: 147_456, roundBytes: GiB / 2 })).toBe(6.5 * GiB);
    // an exact multiple does not round up on float noise: 1.0 × 32,768 × 147,456 = 4.5 GiB
    expect(requiredKv({ factor: 1, maxModelLen: 32_768, bytesPerToken: 147_456, roundBytes: GiB / 2 })).toBe(4.5 * GiB);
  });
});

describe("lookupModel", () => {
  const user = {
    "org/custom-7b": toModelSpec("org/custom-7b", {
      layers: 4,
      kv_heads: 2,
      head_dim: 64,
      max_context: 4096,
      weights: "1GiB",
      aliases: ["custom"],
    }),
  };
  const table: [string, string | null][] = [
    ["Qwen/Qwen3-8B", "Qwen/Qwen3-8B"], // exact id
    ["qwen/QWEN3-8b", "Qwen/Qwen3-8B"], // case-insensitive id
    ["qwen3-8b", "Qwen/Qwen3-8B"], // served name (an alias)
    ["/models/Qwen3-8B", "Qwen/Qwen3-8B"], // a local path's last part
    ["/srv/hf/Mistral-Nemo-Instruct-2407/", "mistralai/Mistral-Nemo-Instruct-2407"],
    ["meta-llama/Meta-Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-8B-Instruct"],
    ["custom", "org/custom-7b"], // kvgate.yaml models resolve too
    ["org/custom-7b", "org/custom-7b"],
    ["nobody/unknown-1b", null],
  ];
  it.each(table)("%s → %s", (name, id) => {
    expect(lookupModel(catalog, user, name)?.id ?? null).toBe(id);
  });

  it("lets kvgate.yaml override a catalog entry", () => {
    const over = { "Qwen/Qwen3-8B": toModelSpec("Qwen/Qwen3-8B", { layers: 1, kv_heads: 1, head_dim: 1, max_context: 1, weights: 1 }) };
    expect(lookupModel(catalog, over, "Qwen/Qwen3-8B")?.layers).toBe(1);
    expect(lookupModel(catalog, {}, "Qwen/Qwen3-8B")?.layers).toBe(36);
  });
});
