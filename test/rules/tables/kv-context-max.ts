import { expect } from "vitest";
import { kvContextMax } from "../../../src/checks/kv-context-max.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { kvCase, policyOf, seat, voices } from "../../kv/fixtures.js";

// vllm/config/model.py _get_and_verify_max_len: a Llama-2-style model of 4,096 positions, with the rope
// scaling its own config.json declares (kvgate.yaml models: rope_scaling).
const dyn = policyOf({
  models: {
    "acme/long-7b": {
      layers: 32,
      kv_heads: 32,
      head_dim: 128,
      max_context: 4096,
      rope_scaling: { type: "dynamic", factor: 2 },
      weights: "12.6GiB",
    },
    "acme/tok-7b": { layers: 32, kv_heads: 8, head_dim: 128, max_context: 32768, tokenizer_max_length: 16384, weights: "13GiB" },
  },
});
const gemma2 = (len: string, version: string) =>
  seat("g2", { MODEL: "google/gemma-2-9b-it", MAX_MODEL_LEN: len, VLLM_VERSION: version, KV_CACHE_MEMORY_BYTES: String(8 * 2 ** 30) });

const yarn4 = { "--hf-overrides": '{"rope_scaling":{"rope_type":"yarn","factor":4,"original_max_position_embeddings":32768}}' };
const ropeParameters = { "--hf-overrides": '{"rope_parameters":{"rope_type":"yarn","factor":4,"original_max_position_embeddings":32768}}' };
const oldRopeScaling = { "--rope-scaling": '{"type":"yarn","factor":4,"original_max_position_embeddings":32768}' };

export default ruleTester(kvContextMax, {
  valid: [
    kvCase("a context within 4 × 32,768 with YaRN factor 4 (hf_overrides rope_scaling)", [voices({ MAX_MODEL_LEN: "131072" }, yarn4)]),
    kvCase("the same with rope_parameters", [voices({ MAX_MODEL_LEN: "131072" }, ropeParameters)]),
    kvCase("the same with the older --rope-scaling", [voices({ MAX_MODEL_LEN: "131072" }, oldRopeScaling)]),
    kvCase("the native maximum", [voices()]),
    // every rope type but su/longrope/llama3 multiplies the maximum: dynamic ×2 of 4,096 boots at 8,192
    kvCase(
      "dynamic rope ×2: 8,192 of a 4,096-position model boots",
      [seat("long", { MODEL: "acme/long-7b", MAX_MODEL_LEN: "8192", KV_CACHE_MEMORY_BYTES: String(6 * 2 ** 30) })],
      {
        policy: dyn,
      },
    ),
    // Gemma-2's full context from vLLM 0.6.5 (PR #10584)
    kvCase("Gemma-2 at 8,192 on vLLM 0.6.5", [gemma2("8192", "0.6.5")]),
  ],
  invalid: [
    {
      ...kvCase("a context above the native maximum without YaRN", [voices({ MAX_MODEL_LEN: "65536" })]),
      findings: [
        {
          messageId: "native",
          data: { max_model_len: 65_536, max_context: 40_960, fix: { file: "scripts/voices.env", key: "MAX_MODEL_LEN", value: "40960" } },
          message: expect.stringContaining(
            "> Qwen/Qwen3-8B's native 40,960 (max_position_embeddings) and YaRN is off; set MAX_MODEL_LEN=40960, or",
          ),
        },
      ],
    },
    {
      ...kvCase("the context set by flag: the fix names the flag", [voices({ MAX_MODEL_LEN: undefined }, { "--max-model-len": "65536" })]),
      findings: [
        { data: { fix: { key: "--max-model-len", value: "40960" } }, message: expect.stringContaining("set --max-model-len 40960, or") },
      ],
    },
    {
      // A cap of 50,000 above the native 40,960: lowering the context alone would raise gen/output-cap.
      ...kvCase("an output cap above the native maximum: no single value, the cap goes first", [
        voices({ MAX_MODEL_LEN: "65536" }, { "--override-generation-config": '{"max_new_tokens":50000}' }),
      ]),
      findings: [
        {
          data: { cap: 50_000 },
          message: expect.stringContaining("lower max_new_tokens (50,000) to 40,960 or less, then max_model_len to 40,960"),
        },
      ],
    },
    {
      ...kvCase("a context above original × factor with YaRN", [voices({ MAX_MODEL_LEN: "131073" }, yarn4)]),
      findings: [{ messageId: "yarn", data: { limit: 131_072, original: 32_768, yarn_factor: 4 } }],
    },
    {
      ...kvCase(
        "dynamic rope ×2 stops at 8,192",
        [seat("long", { MODEL: "acme/long-7b", MAX_MODEL_LEN: "8193", KV_CACHE_MEMORY_BYTES: String(6 * 2 ** 30) })],
        {
          policy: dyn,
        },
      ),
      findings: [
        {
          messageId: "derived",
          message: expect.stringContaining(
            "max_model_len 8,193 > the 8,192 vLLM derives for acme/long-7b (dynamic 2 × max_position_embeddings 4096)",
          ),
          data: { limit: 8192, derived_key: "max_position_embeddings", fix: { key: "MAX_MODEL_LEN", value: "8192" } },
        },
      ],
    },
    {
      // vLLM 0.5.1–0.6.4 turned Gemma-2's interleaved window off and capped the length to it (PR #5908)
      ...kvCase("Gemma-2 at 8,192 on vLLM 0.6.4: capped to its 4,096 window", [gemma2("8192", "0.6.4")]),
      findings: [
        {
          messageId: "derived",
          message: expect.stringContaining(
            "> the 4,096 vLLM derives for google/gemma-2-9b-it (sliding_window 4096), capped to the sliding window",
          ),
          data: { limit: 4096, derived_key: "sliding_window" },
        },
      ],
    },
    {
      ...kvCase("--disable-sliding-window caps to the window", [
        seat(
          "g2",
          { MODEL: "google/gemma-2-9b-it", MAX_MODEL_LEN: "8192", VLLM_VERSION: "0.11.0", KV_CACHE_MEMORY_BYTES: String(8 * 2 ** 30) },
          { "--disable-sliding-window": "true" },
        ),
      ]),
      findings: [{ messageId: "derived", data: { limit: 4096, derived_key: "sliding_window" } }],
    },
    {
      ...kvCase(
        "the tokenizer's model_max_length caps the maximum",
        [seat("tok", { MODEL: "acme/tok-7b", MAX_MODEL_LEN: "20000", KV_CACHE_MEMORY_BYTES: String(4 * 2 ** 30) })],
        {
          policy: dyn,
        },
      ),
      findings: [
        {
          messageId: "derived",
          message: expect.stringContaining("capped to the tokenizer's model_max_length"),
          data: { limit: 16_384, derived_key: "tokenizer model_max_length" },
        },
      ],
    },
  ],
});
