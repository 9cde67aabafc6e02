// Fuzzing a model's config.json as the loader reads it (issue 26): the sanity bounds
// (src/parse/model-config-bounds.ts), then the facts (src/kv/hf-config.ts), then the request's KV
// (src/kv/attention.ts). For any JSON, and for configs shaped like real ones with any numbers in their
// sizing fields: never a throw, never a hang; a number past its bound is named; and a config within
// the bounds sizes a seat to a finite number of bytes, or says why it cannot.
import { describe, expect, test } from "vitest";
import fc from "fast-check";
import { modelFileProblem } from "../../src/parse/model-config-bounds.js";
import { readHfConfig } from "../../src/kv/hf-config.js";
import { requestKv } from "../../src/kv/attention.js";
import { RUNS } from "./arbitraries.js";

const FIELDS = [
  "num_hidden_layers",
  "num_attention_heads",
  "num_key_value_heads",
  "hidden_size",
  "head_dim",
  "intermediate_size",
  "vocab_size",
  "max_position_embeddings",
  "sliding_window",
  "kv_lora_rank",
  "qk_rope_head_dim",
  "num_experts",
] as const;

/** Numbers as a hostile or broken config writes them: real sizes, zero, negative, fractional, huge. */
const number = fc.oneof(
  fc.integer({ min: 1, max: 256 }),
  fc.constantFrom(0, -1, 0.5, 4096, 131072, 400_000_000, 2 ** 31, 2 ** 53, 1e308, -1e308),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);
const value = fc.oneof(number, fc.constantFrom(null, true, "32", [], {}));
const config = fc
  .tuple(
    fc.dictionary(fc.constantFrom(...FIELDS), value, { maxKeys: FIELDS.length }),
    fc.constantFrom("llama", "qwen2", "deepseek_v3", "gemma3", "mistral", null),
    fc.option(fc.constantFrom("sliding_attention", "full_attention", "linear_attention")),
    fc.nat(12),
    fc.boolean(),
  )
  .map(([fields, modelType, layerType, layerCount, nested]) => {
    const base: Record<string, unknown> = {
      num_hidden_layers: 4,
      num_attention_heads: 8,
      num_key_value_heads: 2,
      hidden_size: 512,
      max_position_embeddings: 4096,
      torch_dtype: "bfloat16",
      ...fields,
    };
    if (modelType !== null) base.model_type = modelType;
    if (layerType !== null) base.layer_types = Array.from({ length: layerCount }, () => layerType);
    return nested ? { model_type: "llava", text_config: base } : base;
  });

/** The loader's path for one config.json text: bounds first, the facts only within them. */
function read(text: string): void {
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    // src/kv reports malformed JSON itself, with where.
  }
  const bound = json === null ? null : modelFileProblem(json, true);
  if (bound !== null) {
    expect(bound.message.length).toBeGreaterThan(0);
    expect(bound.field.length).toBeGreaterThan(0);
    return;
  }
  const r = readHfConfig(text, "models/m/config.json");
  if (!r.ok) {
    expect(r.problem.message).toContain("models/m/config.json");
    return;
  }
  expect(r.facts.layers).toBeLessThanOrEqual(4096);
  const kv = requestKv(r.facts, { maxModelLen: 8192, maxNumBatchedTokens: 8192 });
  if (kv.ok) expect(Number.isFinite(kv.kv.requestBytes)).toBe(true);
  else expect(kv.problem.message.length).toBeGreaterThan(0);
}

describe("a config.json never crashes the sizing", () => {
  test("any text", () => {
    fc.assert(fc.property(fc.string({ maxLength: 200 }), read), { numRuns: RUNS.cheap });
  });
  test("any JSON value", () => {
    fc.assert(
      fc.property(fc.json({ depthSize: "medium" }), (t) => read(t)),
      { numRuns: RUNS.cheap },
    );
  });
  test("configs shaped like real ones, with any numbers in their sizing fields", () => {
    fc.assert(
      fc.property(config, (c) => read(JSON.stringify(c))),
      { numRuns: RUNS.medium },
    );
  });
  test("a number past its bound is named, wherever the text config sits", () => {
    fc.assert(
      fc.property(fc.constantFrom(...FIELDS), fc.boolean(), (field, nested) => {
        const top = { num_hidden_layers: 4, [field]: 1e12 };
        const p = modelFileProblem(nested ? { text_config: top } : top, true);
        expect(p?.field).toBe(nested ? `text_config.${field}` : field);
        expect(p?.message).toMatch(/above the [\d,]+ any model has/);
      }),
      { numRuns: 50 },
    );
  });
});
