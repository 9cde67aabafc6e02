// config.json read as vLLM reads it (src/kv/hf-config.ts): the published configs of the models the
// issue names, then the malformed and unsupported ones, each a problem with file, field and fix.
import { describe, expect, it } from "vitest";
import * as fc from "fast-check";
import { factsFromHfJson, readHfConfig } from "../../src/kv/hf-config.js";
import { countKinds, kindsFromPattern } from "../../src/kv/facts.js";
import { catalogFacts, configFacts } from "./config-fixtures.js";

describe("published configs", () => {
  // config, layers, attention heads, KV heads, head size, [full, sliding, chunked, mamba, mla], window/chunk
  const table: [string, number, number, number, number, [number, number, number, number, number], number | null][] = [
    // text_config of a multimodal model; 10 full (layers 6, 12, …, 60) and 52 sliding of 1024
    ["gemma-3-27b-it", 62, 32, 16, 128, [10, 52, 0, 0, 0], 1024],
    // layer_types alternate sliding (128) and full
    ["gpt-oss-20b", 24, 64, 8, 64, [12, 12, 0, 0, 0], 128],
    // every 4th layer NoPE and global, the rest chunked local of 8192
    ["llama-4-scout-17b-16e-instruct", 48, 40, 8, 128, [12, 0, 36, 0, 0], 8192],
    // every 4th layer full attention, the rest gated-delta-net linear attention
    ["qwen3-next-80b-a3b-instruct", 48, 16, 2, 256, [12, 0, 0, 36, 0], null],
    // MLA: head size kv_lora_rank + qk_rope_head_dim = 576, one latent "head"
    ["deepseek-v3", 61, 128, 128, 576, [0, 0, 0, 0, 61], null],
    // head_dim 128 from text_config, not 5120 / 32 = 160
    ["mistral-small-3.1-24b-instruct-2503", 40, 32, 8, 128, [40, 0, 0, 0, 0], null],
    // flat config; sliding_window 32768 with use_sliding_window false: every layer full; 3584 / 28 = 128
    ["qwen2.5-vl-7b-instruct", 28, 28, 4, 128, [28, 0, 0, 0, 0], null],
    ["qwen3-8b", 36, 32, 8, 128, [36, 0, 0, 0, 0], null],
    // no head_dim: 5120 / 40 = 128
    ["phi-4", 40, 40, 10, 128, [40, 0, 0, 0, 0], null],
  ];
  it.each(table)("%s: %i layers, %i heads, %i KV heads, head size %i", (name, layers, heads, kv, hd, kinds, window) => {
    const f = configFacts(name);
    expect([f.layers, f.attentionHeads, f.kvHeads, f.headDim]).toEqual([layers, heads, kv, hd]);
    const c = countKinds(f);
    expect([c.full, c.sliding, c.chunked, c.mamba, c.mla]).toEqual(kinds);
    expect(f.slidingWindow ?? f.attentionChunkSize).toBe(window);
  });

  it("fills what Gemma-3's published config leaves out with Gemma3TextConfig's defaults, and says so", () => {
    const f = configFacts("gemma-3-27b-it");
    expect(f.maxLen).toEqual({ value: 131_072, key: "max_position_embeddings" });
    expect(f.defaulted).toEqual([
      "text_config.sliding_window_pattern=6 (gemma3_text default)",
      "text_config.vocab_size=262208 (gemma3_text default)",
      "text_config.max_position_embeddings=131072 (gemma3_text default)",
    ]);
    // sliding unless (i + 1) % 6 == 0
    expect(f.layerKinds.slice(0, 12)).toEqual([
      "sliding",
      "sliding",
      "sliding",
      "sliding",
      "sliding",
      "full",
      "sliding",
      "sliding",
      "sliding",
      "sliding",
      "sliding",
      "full",
    ]);
    expect(f.rope).toEqual([{ type: "linear", factor: 8, originalMax: null }]);
  });

  it("reads the linear-attention state, MLA, experts and quantization_config", () => {
    expect(configFacts("qwen3-next-80b-a3b-instruct").linearState).toEqual({
      numKeyHeads: 16,
      numValueHeads: 32,
      keyHeadDim: 128,
      valueHeadDim: 128,
      convKernel: 4,
    });
    const ds = configFacts("deepseek-v3");
    expect(ds.mla).toEqual({ kvLoraRank: 512, qkRopeHeadDim: 64, qkNopeHeadDim: 128, sparse: false });
    expect(ds.quantization).toEqual({ method: "fp8", bits: null, groupSize: null });
    expect(ds.rope).toEqual([{ type: "yarn", factor: 40, originalMax: 4096 }]);
    expect(configFacts("gpt-oss-20b").experts).toEqual({ count: 32, perToken: 4, intermediate: null });
    expect(configFacts("gpt-oss-20b").quantization?.method).toBe("mxfp4");
    expect(configFacts("qwen2.5-vl-7b-instruct").rope).toEqual([{ type: "default", factor: null, originalMax: null }]);
  });

  it("normalises quantization_config as vLLM does", () => {
    const base = { num_hidden_layers: 2, num_attention_heads: 4, hidden_size: 256 };
    const q = (quantization_config: unknown) => {
      const r = factsFromHfJson({ ...base, quantization_config }, "c.json");
      if (!r.ok) throw new Error(r.problem.message);
      return r.facts.quantization;
    };
    expect(q({ quant_method: "AWQ", bits: 4, group_size: 128 })).toEqual({ method: "awq", bits: 4, groupSize: 128 });
    expect(q({ quant_method: "gptq", bits: 8, group_size: -1 })).toEqual({ method: "gptq", bits: 8, groupSize: null });
    expect(q({ producer: { name: "modelopt" }, quantization: { quant_algo: "NVFP4" } })?.method).toBe("modelopt_fp4");
    expect(q({ producer: { name: "modelopt" }, quantization: { quant_algo: "FP8" } })?.method).toBe("modelopt");
    expect(q({ quant_method: "compressed_tensors", config_groups: { g0: { weights: { num_bits: 4 } } } })).toEqual({
      method: "compressed-tensors",
      bits: 4,
      groupSize: null,
    });
  });

  it("takes the KV heads as get_total_num_kv_heads does", () => {
    const kv = (extra: Record<string, unknown>) => {
      const r = factsFromHfJson({ num_hidden_layers: 2, num_attention_heads: 32, hidden_size: 4096, ...extra }, "c.json");
      if (!r.ok) throw new Error(r.problem.message);
      return r.facts.kvHeads;
    };
    expect(kv({})).toBe(32); // no KV key: MHA
    expect(kv({ multi_query: true })).toBe(1); // GPTBigCode
    expect(kv({ n_head_kv: 8, num_key_value_heads: 4 })).toBe(8); // Falcon's key first
    expect(kv({ multi_query_group_num: 2 })).toBe(2); // ChatGLM
  });

  it("slides only from max_window_layers on when a Qwen2-family config turns the window on", () => {
    const r = factsFromHfJson(
      {
        model_type: "qwen2",
        num_hidden_layers: 4,
        num_attention_heads: 4,
        hidden_size: 256,
        sliding_window: 64,
        use_sliding_window: true,
        max_window_layers: 2,
      },
      "c.json",
    );
    expect(r.ok && r.facts.layerKinds).toEqual(["full", "full", "sliding", "sliding"]);
    const mistral = factsFromHfJson(
      { model_type: "mistral", num_hidden_layers: 3, num_attention_heads: 4, hidden_size: 256, sliding_window: 4096 },
      "c.json",
    );
    expect(mistral.ok && mistral.facts.layerKinds).toEqual(["sliding", "sliding", "sliding"]);
  });

  it("goes through the same facts as a catalog entry", () => {
    const cat = catalogFacts("google/gemma-3-27b-it");
    const cfg = configFacts("gemma-3-27b-it");
    for (const k of ["layers", "attentionHeads", "kvHeads", "headDim", "layerKinds", "slidingWindow", "maxLen"] as const)
      expect(cat[k], k).toEqual(cfg[k]);
    expect(kindsFromPattern("CCCF", 8)).toEqual(["chunked", "chunked", "chunked", "full", "chunked", "chunked", "chunked", "full"]);
  });
});

describe("malformed and unsupported configs are problems, never throws", () => {
  const L = { num_hidden_layers: 4, num_attention_heads: 8, hidden_size: 512 };
  // input, field, message fragment
  const table: [string, unknown, string, RegExp][] = [
    ["not JSON", "{ layers: 4", "(file)", /not valid JSON/],
    ["an array", [1, 2], "(file)", /not a JSON object/],
    ["no layers", { num_attention_heads: 8 }, "num_hidden_layers", /missing or not a positive integer/],
    ["layers as text", { ...L, num_hidden_layers: "32" }, "num_hidden_layers", /not a positive integer/],
    [
      "text_config without num_attention_heads",
      { text_config: { num_hidden_layers: 4, hidden_size: 512 } },
      "text_config.num_attention_heads",
      /vLLM refuses/,
    ],
    ["text_config not an object", { ...L, text_config: "gemma" }, "text_config", /not an object/],
    ["no head size", { num_hidden_layers: 4, num_attention_heads: 8 }, "hidden_size", /head size is unknown/],
    ["head_dim zero", { ...L, head_dim: 0 }, "head_dim", /not a positive integer/],
    [
      "layer_types too short",
      { ...L, layer_types: ["full_attention"], sliding_window: 8 },
      "layer_types",
      /lists 1 layers but num_hidden_layers is 4/,
    ],
    [
      "layer_types unknown",
      { ...L, layer_types: ["full_attention", "mamba", "full_attention", "full_attention"] },
      "layer_types[1]",
      /"mamba", a layer type kvgate cannot size/,
    ],
    [
      "sliding layers without a window",
      { ...L, layer_types: ["sliding_attention", "full_attention", "full_attention", "full_attention"] },
      "sliding_window",
      /missing for sliding-window layers/,
    ],
    [
      "linear layers without their shape",
      { ...L, model_type: "qwen3_next", full_attention_interval: 2 },
      "linear_num_key_heads",
      /linear-attention state cannot be sized/,
    ],
    [
      "Jamba's Mamba blocks",
      { ...L, layers_block_type: ["mamba", "attention", "mamba", "attention"] },
      "layers_block_type",
      /Mamba\/state-space blocks/,
    ],
    ["Nemotron-H's pattern", { ...L, hybrid_override_pattern: "M-M*" }, "hybrid_override_pattern", /cannot size yet/],
    ["max_position_embeddings negative", { ...L, max_position_embeddings: -1 }, "max_position_embeddings", /not a positive number/],
    ["rope_scaling a string", { ...L, rope_scaling: "yarn" }, "rope_scaling", /not an object/],
    ["MLA rank as text", { ...L, model_type: "deepseek_v3", kv_lora_rank: "512" }, "kv_lora_rank", /not whole numbers/],
    [
      "llama4 no_rope_layers of the wrong length",
      { ...L, model_type: "llama4_text", attention_chunk_size: 8192, no_rope_layers: [1, 0] },
      "no_rope_layers",
      /lists 2 layers/,
    ],
  ];
  it.each(table)("%s", (_name, input, field, message) => {
    const r = typeof input === "string" ? readHfConfig(input, "models/x/config.json") : factsFromHfJson(input, "models/x/config.json");
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problem.file).toBe("models/x/config.json");
    expect(r.problem.field).toBe(field);
    expect(r.problem.message).toMatch(message);
    expect(r.problem.message.startsWith("models/x/config.json")).toBe(true);
    expect(r.problem.fix.length).toBeGreaterThan(10);
  });

  it("never throws on any JSON", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const r = factsFromHfJson(v, "c.json");
        expect(typeof r.ok).toBe("boolean");
      }),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.constantFrom(
            "num_hidden_layers",
            "num_attention_heads",
            "hidden_size",
            "head_dim",
            "layer_types",
            "sliding_window",
            "text_config",
            "rope_scaling",
            "model_type",
            "kv_lora_rank",
            "quantization_config",
            "max_position_embeddings",
          ),
          fc.jsonValue(),
        ),
        (v) => {
          const r = factsFromHfJson(v, "c.json");
          expect(typeof r.ok).toBe("boolean");
        },
      ),
      { numRuns: 300 },
    );
  });
});
