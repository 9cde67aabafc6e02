import { kvException } from "../../../src/checks/kv-exception.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { GiB, kvCase, policyOf, seat } from "../../kv/fixtures.js";

const policy = policyOf({ kv: { seats: { "gen-small": { pinned: "5.5GiB", by: "Prime" } } } });
const gen = (pin: string | undefined) =>
  seat("gen-small", { MODEL: "Qwen/Qwen3-4B-Instruct-2507", MAX_MODEL_LEN: "32768", KV_CACHE_MEMORY_BYTES: pin });

export default ruleTester(kvException, {
  valid: [kvCase("the owner's exact number", [gen("5905580032")], { policy })],
  invalid: [
    {
      ...kvCase("an owner-pinned seat pinned 0.5 GiB off, naming the owner", [gen(String(6 * GiB))], { policy }),
      findings: [
        {
          messageId: "differs",
          message:
            "gen-small: KV pin 6 GiB ≠ Prime's 5.5 GiB (kv.seats.gen-small.pinned); set KV_CACHE_MEMORY_BYTES=5905580032 (5.5GiB), or ask Prime to change kv.seats.gen-small",
          data: { owner_bytes: 5.5 * GiB, pinned_bytes: 6 * GiB },
        },
      ],
    },
    { ...kvCase("the owner-pinned seat without a pin", [gen(undefined)], { policy }), findings: [{ messageId: "unpinned" }] },
  ],
});
