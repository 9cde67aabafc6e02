import { genOutputCap } from "../../../src/checks/gen-output-cap.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { kvCase, voices } from "../../kv/fixtures.js";

export default ruleTester(genOutputCap, {
  valid: [kvCase("a cap within the context", [voices({}, { "--override-generation-config": '{"max_new_tokens":8192}' })])],
  invalid: [
    { ...kvCase("a seat without a default output cap: a warning", [voices()]), findings: [{ messageId: "missing", severity: "warning" }] },
    {
      ...kvCase("a cap above max_model_len: an error", [voices({}, { "--override-generation-config": '{"max_new_tokens":65536}' })]),
      findings: [{ messageId: "above", severity: "error", data: { cap: 65_536, max_model_len: 40_960 } }],
    },
  ],
});
