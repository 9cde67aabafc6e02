import { kvLongContextOverride } from "../../../src/checks/kv-long-context-override.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { kvCase, voices } from "../../kv/fixtures.js";

export default ruleTester(kvLongContextOverride, {
  valid: [kvCase("VLLM_ALLOW_LONG_MAX_MODEL_LEN=0", [voices({ VLLM_ALLOW_LONG_MAX_MODEL_LEN: "0" })]), kvCase("without it", [voices()])],
  invalid: [
    {
      ...kvCase("VLLM_ALLOW_LONG_MAX_MODEL_LEN=1", [voices({ VLLM_ALLOW_LONG_MAX_MODEL_LEN: "1" })]),
      findings: [{ service: "voices", line: 7 }],
    },
  ],
});
