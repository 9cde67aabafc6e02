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
      ...kvCase("a seat with only --gpu-memory-utilization on a card shared with a tenant", [utilOnly()], { tenants: [tenant("parakeet-nemo", 0, 3 * GiB)] }),
      findings: [{ data: { neighbours: ["parakeet-nemo"], utilization: 0.45, required_bytes: 7.5 * GiB, pinned_bytes: null }, message: expect.stringContaining("set KV_CACHE_MEMORY_BYTES=8053063680 (7.5GiB)") }],
    },
  ],
});
