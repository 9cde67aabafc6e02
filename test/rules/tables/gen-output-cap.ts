import { expect } from "vitest";
import { genOutputCap } from "../../../src/checks/gen-output-cap.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { kvCase, voices } from "../../kv/fixtures.js";

export default ruleTester(genOutputCap, {
  valid: [
    kvCase("a cap within the context", [voices({}, { "--override-generation-config": '{"max_new_tokens":8192}' })]),
    kvCase("vLLM 0.8.0 reads it as a server-wide cap", [
      voices({ VLLM_VERSION: "0.8.0" }, { "--override-generation-config": '{"max_new_tokens":8192}' }),
    ]),
    // Its command line came through an Ansible lookup kvgate cannot run: the cap may be on it, so no
    // "no cap" claim (fleet/unsized refuses the seat instead).
    kvCase("no cap read, but the seat's command line was unreadable", [
      { ...voices(), commandUnread: { file: "roles/vllm/templates/vllm.env.j2", line: 7, key: "VLLM_EXTRA_ARGS" } },
    ]),
  ],
  invalid: [
    { ...kvCase("a seat without a default output cap: a warning", [voices()]), findings: [{ messageId: "missing", severity: "warning" }] },
    {
      ...kvCase("a cap above max_model_len: an error", [voices({}, { "--override-generation-config": '{"max_new_tokens":65536}' })]),
      findings: [{ messageId: "above", severity: "error", data: { cap: 65_536, max_model_len: 40_960 } }],
    },
    {
      // The fix is the whole flag value, the cap lowered to the 40,960-token context and the other
      // generation defaults kept.
      ...kvCase("the fix names the flag's whole JSON value", [
        voices({}, { "--override-generation-config": '{"max_new_tokens":65536,"temperature":0.7}' }),
      ]),
      findings: [
        {
          messageId: "above",
          message: expect.stringContaining(
            `set --override-generation-config '{"max_new_tokens":40960,"temperature":0.7}' (max_new_tokens 40,960 or less)`,
          ),
          data: { fix: { key: "--override-generation-config", value: '{"max_new_tokens":40960,"temperature":0.7}' } },
        },
      ],
    },
    {
      ...kvCase("vLLM 0.7 ignores max_new_tokens (a cap only since PR #12242, 0.8.0): as good as no cap", [
        voices({ VLLM_VERSION: "0.7.3" }, { "--override-generation-config": '{"max_new_tokens":8192}' }),
      ]),
      findings: [{ messageId: "ignored", severity: "warning", data: { cap: 8192, max_new_tokens_means: "ignored", version: "0.7.3" } }],
    },
  ],
});
