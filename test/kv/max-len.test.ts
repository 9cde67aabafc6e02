// max_model_len per vllm/config/model.py _get_and_verify_max_len, and --max-model-len values per
// vllm/engine/arg_utils.py human_readable_int(_or_auto).
import { describe, expect, it } from "vitest";
import type { ModelFacts, RopeScaling } from "../../src/kv/facts.js";
import {
  derivedMaxModelLen,
  parseHumanReadableInt,
  resolveMaxModelLen,
  withConfigOverrides,
  type DerivedMaxLen,
} from "../../src/kv/max-len.js";
import { catalogFacts, configFacts } from "./config-fixtures.js";

type LenFacts = Pick<ModelFacts, "maxLen" | "rope" | "modelType" | "originalMaxPositionEmbeddings" | "modelMaxLength">;

function facts(max: number, rope: RopeScaling[] = [], extra: Partial<LenFacts> = {}): LenFacts {
  return {
    maxLen: { value: max, key: "max_position_embeddings" },
    rope,
    modelType: "llama",
    originalMaxPositionEmbeddings: null,
    modelMaxLength: null,
    ...extra,
  };
}

function derived(f: LenFacts): DerivedMaxLen {
  const d = derivedMaxModelLen(f);
  if ("field" in d) throw new Error(d.message);
  return d;
}

describe("rope scaling: which kinds multiply the maximum", () => {
  // max_position_embeddings, rope, derived, default max_model_len
  const table: [string, number, RopeScaling[], number, number][] = [
    ["no rope scaling", 40_960, [], 40_960, 40_960],
    // yarn resets to original × factor: Qwen3 with YaRN 4 over 32,768
    ["yarn ×4 over 32,768", 40_960, [{ type: "yarn", factor: 4, originalMax: 32_768 }], 131_072, 131_072],
    ["dynamic ×2", 32_768, [{ type: "dynamic", factor: 2, originalMax: null }], 65_536, 65_536],
    ["linear ×2", 4096, [{ type: "linear", factor: 2, originalMax: null }], 8192, 8192],
    // llama3, longrope and su: max_position_embeddings is already the long figure
    ["llama3 ×8 (Llama-3.1)", 131_072, [{ type: "llama3", factor: 8, originalMax: 8192 }], 131_072, 131_072],
    ["su", 131_072, [{ type: "su", factor: null, originalMax: null }], 131_072, 131_072],
    // longrope: vLLM defaults to original_max_position_embeddings (Phi-3-mini-128k: 4,096)
    ["longrope (default is the original 4,096)", 131_072, [{ type: "longrope", factor: null, originalMax: null }], 131_072, 4096],
    // default / mrope carry no factor (Qwen2.5-VL)
    ["mrope → default", 128_000, [{ type: "default", factor: null, originalMax: null }], 128_000, 128_000],
    // gpt-oss: yarn 32 × 4,096 = 131,072
    ["gpt-oss yarn", 131_072, [{ type: "yarn", factor: 32, originalMax: 4096 }], 131_072, 131_072],
  ];
  it.each(table)("%s", (_name, max, rope, value, defaultLen) => {
    const d = derived(facts(max, rope, { originalMaxPositionEmbeddings: rope.some((r) => r.type === "longrope") ? 4096 : null }));
    expect([d.value, d.defaultLen]).toEqual([value, defaultLen]);
  });

  it("skips Gemma-3's linear ×8: its 131,072 is already scaled", () => {
    const d = derived(configFacts("gemma-3-27b-it"));
    expect([d.value, d.factor]).toEqual([131_072, 1]);
    expect(d.via).toMatch(/gemma3: already scaled/);
  });

  it("reads the published configs", () => {
    expect(derived(configFacts("deepseek-v3")).value).toBe(163_840); // yarn 40 × 4,096
    expect(derived(configFacts("llama-4-scout-17b-16e-instruct")).value).toBe(10_485_760); // llama3: not multiplied
    expect(derived(configFacts("qwen2.5-vl-7b-instruct")).value).toBe(128_000);
    expect(derived(catalogFacts("deepseek-ai/DeepSeek-V2-Lite-Chat")).value).toBe(163_840);
  });

  it("takes the smallest max-length key, and model_max_length over them", () => {
    const f = facts(8192, [], { maxLen: { value: 2048, key: "n_positions" } });
    expect(derived(f)).toMatchObject({ value: 2048, key: "n_positions" });
    expect(derived(facts(0, [], { maxLen: null }))).toMatchObject({ value: 2048, key: "default" });
  });

  it("refuses yarn without original_max_position_embeddings (vLLM: KeyError)", () => {
    const d = derivedMaxModelLen(facts(32_768, [{ type: "yarn", factor: 4, originalMax: null }]));
    expect("field" in d && d.field).toBe("rope_scaling.original_max_position_embeddings");
  });
});

describe("--max-model-len against the derived maximum", () => {
  const qwen = catalogFacts("Qwen/Qwen3-8B"); // 40,960
  it("uses the derived length when the service sets none", () => {
    expect(resolveMaxModelLen(qwen, null)).toMatchObject({ ok: true, maxModelLen: 40_960, source: "derived" });
  });

  it("accepts a shorter one and refuses a longer one as vLLM does", () => {
    expect(resolveMaxModelLen(qwen, 32_768)).toMatchObject({ ok: true, maxModelLen: 32_768, source: "requested" });
    const r = resolveMaxModelLen(qwen, 131_072);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.problem.message).toBe(
      "--max-model-len 131072 is greater than the derived max_model_len (max_position_embeddings 40960 = 40960): vLLM refuses to start",
    );
    expect(!r.ok && r.problem.fix).toMatch(/set --max-model-len 40960 or less/);
  });

  it("lets VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 through with a warning, and model_max_length without one", () => {
    const r = resolveMaxModelLen(qwen, 131_072, { allowLong: true });
    expect(r.ok && r.warning).toMatch(/VLLM_ALLOW_LONG_MAX_MODEL_LEN/);
    expect(resolveMaxModelLen({ ...qwen, modelMaxLength: 65_536 }, 65_536)).toMatchObject({ ok: true, maxModelLen: 65_536 });
  });

  it("takes YaRN from --hf-overrides before deriving: 131,072 then passes", () => {
    const yarn = withConfigOverrides(qwen, { rope_scaling: { rope_type: "yarn", factor: 4, original_max_position_embeddings: 32_768 } });
    expect(resolveMaxModelLen(yarn, 131_072)).toMatchObject({ ok: true, maxModelLen: 131_072 });
    const dyn = withConfigOverrides(qwen, undefined, { type: "dynamic", factor: 2 });
    expect(derived(dyn).value).toBe(81_920);
    const longer = withConfigOverrides(qwen, { max_position_embeddings: 65_536 });
    expect(derived(longer).value).toBe(65_536);
  });

  it("turns auto / -1 into the upper bound it fits at boot", () => {
    expect(resolveMaxModelLen(qwen, "auto")).toMatchObject({ ok: true, maxModelLen: 40_960, source: "auto" });
    expect(resolveMaxModelLen(qwen, -1)).toMatchObject({ ok: true, source: "auto" });
    expect(resolveMaxModelLen(qwen, -5).ok).toBe(false);
    expect(resolveMaxModelLen(qwen, 0).ok).toBe(false);
  });
});

describe("human_readable_int", () => {
  // text, auto allowed, value (null = refused)
  const table: [string, boolean, number | null][] = [
    ["32768", false, 32_768],
    ["32_768", false, 32_768], // Python int() takes underscores
    ["1_000_000", false, 1_000_000],
    [" 4096 ", false, 4096],
    ["+42", false, 42],
    ["007", false, 7],
    ["32k", false, 32_000],
    ["32K", false, 32_768],
    ["25.6k", false, 25_600],
    ["1.005k", false, 1004], // int(float("1.005") * 1000) = int(1004.9999999999999)
    ["1m", false, 1_000_000],
    ["1M", false, 1_048_576],
    ["1.5K", false, null], // decimals are not allowed with binary suffixes
    ["auto", true, -1],
    ["AUTO", true, -1],
    ["-1", true, -1],
    ["auto", false, null],
    ["-1", false, -1], // plain int(); rejected later as a length
    ["32__768", false, null],
    ["_32768", false, null],
    ["32768_", false, null],
    ["1e5", false, null],
    ["0x10", false, null],
    ["32 k", false, null],
    ["32KiB", false, null],
    ["", false, null],
  ];
  it.each(table)("%j (auto %s) → %s", (text, auto, value) => {
    const r = parseHumanReadableInt(text, { auto });
    if (value === null) {
      expect(r.ok).toBe(false);
      expect(!r.ok && r.message.length).toBeGreaterThan(10);
    } else {
      expect(r).toEqual({ ok: true, value });
    }
  });

  it("says why a binary suffix refuses a fraction, as vLLM does", () => {
    const r = parseHumanReadableInt("1.5K");
    expect(!r.ok && r.message).toMatch(/decimals are not allowed with binary suffixes like K; did you mean 1.5k/);
  });
});

describe("caps before the rope factor (_get_and_verify_max_len)", () => {
  // config max, caps, rope → derived value, key
  const table: [string, number, { slidingWindow?: number | null; tokenizerMaxLength?: number | null }, RopeScaling[], number, string][] = [
    // --disable-sliding-window: the window caps the length (max_len_key "sliding_window")
    ["Mistral-7B-v0.1 with --disable-sliding-window", 32_768, { slidingWindow: 4096 }, [], 4096, "sliding_window"],
    // a window longer than the context caps nothing
    ["a window past the context", 32_768, { slidingWindow: 131_072 }, [], 32_768, "max_position_embeddings"],
    // the tokenizer's model_max_length caps the derived maximum
    ["tokenizer_config.json model_max_length 16,384", 32_768, { tokenizerMaxLength: 16_384 }, [], 16_384, "tokenizer model_max_length"],
    // the caps come first, then the rope factor multiplies what is left (dynamic ×2 of a 16,384 cap)
    [
      "a cap, then dynamic ×2",
      32_768,
      { tokenizerMaxLength: 16_384 },
      [{ type: "dynamic", factor: 2, originalMax: null }],
      32_768,
      "tokenizer model_max_length",
    ],
    // every rope type but su/longrope/llama3 multiplies: dynamic ×2 doubles 4,096
    ["dynamic ×2 over 4,096 positions", 4096, {}, [{ type: "dynamic", factor: 2, originalMax: null }], 8192, "max_position_embeddings"],
    ["linear ×4", 4096, {}, [{ type: "linear", factor: 4, originalMax: null }], 16_384, "max_position_embeddings"],
    [
      "llama3 ×8: already the long figure",
      131_072,
      {},
      [{ type: "llama3", factor: 8, originalMax: 8192 }],
      131_072,
      "max_position_embeddings",
    ],
  ];
  it.each(table)("%s", (_n, max, caps, rope, value, key) => {
    const d = derivedMaxModelLen(facts(max, rope), caps);
    expect(d).toMatchObject({ value, key });
  });
});
