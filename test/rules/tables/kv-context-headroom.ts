import { kvContextHeadroom } from "../../../src/checks/kv-context-headroom.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { GiB, kvCase, tenant, voices } from "../../kv/fixtures.js";

// Qwen3-8B (native 40,960) at 16,384 tokens pinned at 3 GiB; its maximum needs 7.5 GiB (4.5 GiB more).
// gpu 0: 95 GiB usable − (15.3 GiB weights + 3 GiB + 2 GiB overhead) = 74.7 GiB spare.
const short = () => voices({ MAX_MODEL_LEN: "16384", KV_CACHE_MEMORY_BYTES: String(3 * GiB) });

export default ruleTester(kvContextHeadroom, {
  valid: [
    kvCase("a seat at its model's maximum", [voices()]),
    kvCase("no room: a 72 GiB tenant leaves 2.7 GiB, less than the 4.5 GiB more the maximum needs", [short()], {
      tenants: [tenant("asr", 0, 72 * GiB)],
    }),
  ],
  invalid: [
    {
      ...kvCase("16,384 of 40,960 with 74.7 GiB spare: raise it", [short()]),
      findings: [
        {
          severity: "notice",
          message:
            "voices: runs at 16,384 tokens, below its model's 40,960, and its card has room: KV 3 GiB → 7.5 GiB leaves 70.2 GiB spare; set MAX_MODEL_LEN=40960 and KV_CACHE_MEMORY_BYTES=8053063680",
          data: {
            max_model_len: 16_384,
            native_max: 40_960,
            required_bytes_at_max: 7.5 * GiB,
            card_spare_after_bytes: 95 * GiB - Math.round(15.3 * GiB) - 3 * GiB - 2 * GiB - 4.5 * GiB,
          },
        },
      ],
    },
  ],
});
