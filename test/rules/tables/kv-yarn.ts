import { kvYarn } from "../../../src/checks/kv-yarn.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { kvCase, policyOf, voices } from "../../kv/fixtures.js";

const yarn4 = { "--hf-overrides": '{"rope_scaling":{"rope_type":"yarn","factor":4,"original_max_position_embeddings":32768}}' };

export default ruleTester(kvYarn, {
  valid: [
    kvCase("no YaRN (linear rope scaling)", [voices({}, { "--hf-overrides": '{"rope_scaling":{"rope_type":"linear","factor":2}}' })]),
  ],
  invalid: [
    {
      ...kvCase("static YaRN on: a warning (the rule's default)", [voices({ MAX_MODEL_LEN: "131072" }, yarn4)]),
      findings: [{ messageId: "on", severity: "warning", data: { yarn_factor: 4 } }],
    },
    {
      ...kvCase("an error where the seat says yarn: forbid", [voices({}, yarn4)], {
        policy: policyOf({ kv: { seats: { voices: { yarn: "forbid", by: "Prime" } } } }),
      }),
      findings: [{ messageId: "forbidden", severity: "error" }],
    },
  ],
});
