import { expect } from "vitest";
import { kvUnpinnedSharedCard } from "../../../src/checks/kv-unpinned-shared-card.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { GiB, kvCase, tenant, voices } from "../../kv/fixtures.js";

const utilOnly = () => voices({ KV_CACHE_MEMORY_BYTES: undefined }, { "--gpu-memory-utilization": "0.45" });

export default ruleTester(kvUnpinnedSharedCard, {
  valid: [
    kvCase("the utilization-sized seat alone on its card", [utilOnly()]),
    kvCase("a pinned seat on a shared card", [voices()], { tenants: [tenant("parakeet-nemo", 0, 3 * GiB)] }),
  ],
  invalid: [
    {
      ...kvCase("a seat with only --gpu-memory-utilization on a card shared with a tenant", [utilOnly()], {
        tenants: [tenant("parakeet-nemo", 0, 3 * GiB)],
      }),
      findings: [
        {
          data: { neighbours: ["parakeet-nemo"], utilization: 0.45, required_bytes: 7.5 * GiB, pinned_bytes: null },
          message: expect.stringContaining("set KV_CACHE_MEMORY_BYTES=8053063680 (7.5GiB)"),
        },
      ],
    },
    {
      // At 0.1 of 96 GiB voices holds 9.6 GiB beside a 75 GiB tenant; pinned it would hold 15.3 + 7.5 +
      // 2 = 24.8 GiB, which the card cannot: no pin is advised (gpu/fits would refuse it).
      ...kvCase(
        "a pin the card cannot hold is not advised",
        [voices({ KV_CACHE_MEMORY_BYTES: undefined, GPU_MEMORY_UTILIZATION: "0.1" })],
        { tenants: [tenant("big", 0, 75 * GiB)] },
      ),
      findings: [
        {
          data: { overfills: true, set: null },
          message: expect.stringContaining("the pin it needs (7.5 GiB) would overfill the card: move a seat (kvgate plan --host fv-ml1)"),
        },
      ],
    },
  ],
});
