import { kvAutoContext } from "../../../src/checks/kv-auto-context.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { GiB, kvCase, voices } from "../../kv/fixtures.js";

export default ruleTester(kvAutoContext, {
  valid: [kvCase("a context in tokens is sized by kv/covers-context", [voices()])],
  invalid: [
    {
      // 4 GiB / 147,456 B per token = 29,127 tokens, whole 16-token blocks: 29,120.
      ...kvCase("--max-model-len auto: a notice with what vLLM would fit in the 4 GiB pin", [
        voices({ MAX_MODEL_LEN: undefined, KV_CACHE_MEMORY_BYTES: String(4 * GiB) }, { "--max-model-len": "auto" }),
      ]),
      findings: [
        {
          severity: "notice",
          messageId: "auto",
          message:
            "voices: --max-model-len auto: vLLM fits the context to the KV it finds at boot, so kvgate cannot check it (with 4 GiB of KV it would pick about 29,120 tokens); set a number of tokens to have it checked",
          data: { kv_bytes: 4 * GiB, expected_len: 29_120 },
        },
      ],
    },
    {
      ...kvCase("-1 on vLLM 0.11, which has no auto: refused at start", [voices({ MAX_MODEL_LEN: "-1", VLLM_VERSION: "0.11.0" })]),
      findings: [{ severity: "error", messageId: "refused", data: { version: "0.11.0" } }],
    },
  ],
});
