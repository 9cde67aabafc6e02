import { kvContextHeadroom } from "../../../src/checks/kv-context-headroom.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { GiB, kvCase, seat, tenant, voices } from "../../kv/fixtures.js";

// Qwen3-8B (native 40,960) at 16,384 tokens pinned at 3 GiB; its maximum needs 7.5 GiB (4.5 GiB more).
// gpu 0: 95 GiB usable − (15.3 GiB weights + 3 GiB + 2 GiB overhead) = 74.7 GiB spare.
const short = () => voices({ MAX_MODEL_LEN: "16384", KV_CACHE_MEMORY_BYTES: String(3 * GiB) });

// A neighbour that boots today but not after the raise: coder (14.2 GiB weights + 2.5 GiB + 2 GiB =
// 18.7 GiB) asks 0.78 × 96 = 74.88 GiB; beside voices at 20.3 GiB it finds 96 − 20.3 − 0.5 (its CUDA
// context) = 75.2 GiB free, beside voices raised to 24.8 GiB only 70.7 GiB: the notice would trade
// itself for a kv/boot-check error, so it is not given (plan --raise-contexts says what else to do).
const coder = (util: string) =>
  seat("coder", {
    MODEL: "Qwen/Qwen2.5-Coder-7B-Instruct",
    MAX_MODEL_LEN: "32768",
    KV_CACHE_MEMORY_BYTES: String(2.5 * GiB),
    GPU_MEMORY_UTILIZATION: util,
  });
const shortLow = () => voices({ MAX_MODEL_LEN: "16384", KV_CACHE_MEMORY_BYTES: String(3 * GiB), GPU_MEMORY_UTILIZATION: "0.3" });

export default ruleTester(kvContextHeadroom, {
  valid: [
    kvCase("a seat at its model's maximum", [voices()]),
    kvCase("no room: a 72 GiB tenant leaves 2.7 GiB, less than the 4.5 GiB more the maximum needs", [short()], {
      tenants: [tenant("asr", 0, 72 * GiB)],
    }),
    kvCase("room on the card, but coder (asking 0.78 × 96 GiB) would no longer boot last: 70.7 GiB free < 74.88 GiB", [
      shortLow(),
      coder("0.78"),
    ]),
  ],
  invalid: [
    {
      ...kvCase("the same with coder asking 0.7 × 96 = 67.2 GiB ≤ 70.7 GiB: raise it", [shortLow(), coder("0.7")]),
      findings: [{ service: "voices", data: { required_bytes_at_max: 7.5 * GiB } }],
    },
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
