import { expect } from "vitest";
import { kvContextMax } from "../../../src/checks/kv-context-max.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { kvCase, voices } from "../../kv/fixtures.js";

const yarn4 = { "--hf-overrides": '{"rope_scaling":{"rope_type":"yarn","factor":4,"original_max_position_embeddings":32768}}' };
const ropeParameters = { "--hf-overrides": '{"rope_parameters":{"rope_type":"yarn","factor":4,"original_max_position_embeddings":32768}}' };
const oldRopeScaling = { "--rope-scaling": '{"type":"yarn","factor":4,"original_max_position_embeddings":32768}' };

export default ruleTester(kvContextMax, {
  valid: [
    kvCase("a context within 4 × 32,768 with YaRN factor 4 (hf_overrides rope_scaling)", [voices({ MAX_MODEL_LEN: "131072" }, yarn4)]),
    kvCase("the same with rope_parameters", [voices({ MAX_MODEL_LEN: "131072" }, ropeParameters)]),
    kvCase("the same with the older --rope-scaling", [voices({ MAX_MODEL_LEN: "131072" }, oldRopeScaling)]),
    kvCase("the native maximum", [voices()]),
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
  ],
});
