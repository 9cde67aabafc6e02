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
      findings: [{ messageId: "native", data: { max_model_len: 65_536, max_context: 40_960 }, message: expect.stringContaining("> Qwen/Qwen3-8B's native 40,960") }],
    },
    {
      ...kvCase("a context above original × factor with YaRN", [voices({ MAX_MODEL_LEN: "131073" }, yarn4)]),
      findings: [{ messageId: "yarn", data: { limit: 131_072, original: 32_768, yarn_factor: 4 } }],
    },
  ],
});
