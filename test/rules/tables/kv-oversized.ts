import { expect } from "vitest";
import { kvOversized } from "../../../src/checks/kv-oversized.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { GiB, kvCase, voices } from "../../kv/fixtures.js";

export default ruleTester(kvOversized, {
  valid: [
    kvCase("a pin less than one rounding step above the requirement", [voices({ KV_CACHE_MEMORY_BYTES: String(Math.round(7.9 * GiB)) })]),
  ],
  invalid: [
    {
      ...kvCase("a pin a rounding step above the requirement, with what could be released", [
        voices({ KV_CACHE_MEMORY_BYTES: String(9 * GiB) }),
      ]),
      findings: [
        {
          severity: "notice",
          data: { release_bytes: 1.5 * GiB, required_bytes: 7.5 * GiB, pinned_bytes: 9 * GiB },
          message: expect.stringContaining("1.5 GiB could be released"),
        },
      ],
    },
  ],
});
