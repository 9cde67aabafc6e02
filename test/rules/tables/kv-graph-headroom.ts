import { kvGraphHeadroom } from "../../../src/checks/kv-graph-headroom.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { expect } from "vitest";
import { GiB, kvCase, policyOf, voices } from "../../kv/fixtures.js";

// vLLM 0.11 captures CUDA graphs outside --gpu-memory-utilization; kvgate takes vLLM's own lower
// bound of their size, 1 GiB per card. On a 96 GiB card 0.95 leaves 4.8 GiB; 0.995 leaves 0.48 GiB.
const v = (util: string, env: Record<string, string | undefined> = {}) =>
  voices({ GPU_MEMORY_UTILIZATION: util, VLLM_VERSION: "0.11.0", ...env });

// A "96 GB" card whose CUDA total is 97,887 MiB (cuda_total): outside the budget lies (1 − u) × 97,887 MiB.
const pro6000 = policyOf({ fleet: { hosts: { "fv-ml1": { gpus: [{ index: 0, total: "96GiB", cuda_total: "97887MiB" }] } } } });

export default ruleTester(kvGraphHeadroom, {
  valid: [
    kvCase("0.95 of 96 GiB leaves 4.8 GiB for graphs", [v("0.95")]),
    kvCase("--enforce-eager captures no graphs", [v("0.995", { ENFORCE_EAGER: "1" })]),
    kvCase("vLLM 0.21 and later estimate graphs inside the budget", [v("0.995", { VLLM_VERSION: "0.21.0" })]),
  ],
  invalid: [
    {
      ...kvCase("0.995 of 96 GiB leaves 0.48 GiB, below the 1 GiB graphs take", [v("0.995")]),
      findings: [
        {
          severity: "warning",
          message:
            "voices: CUDA graphs are captured outside --gpu-memory-utilization on this vLLM version: (1 − 0.995) × 96 GiB leaves 0.48 GiB, below the 1 GiB they take; set GPU_MEMORY_UTILIZATION=0.98 or lower, or add --enforce-eager",
          data: { outside_bytes: Math.floor(0.005 * 96 * GiB), graph_bytes: GiB, max_utilization: 0.98, vllm_version: "0.11.0" },
        },
      ],
    },
    {
      ...kvCase("on the CUDA total: (1 − 0.995) × 97,887 MiB = 489 MiB", [v("0.995")], { policy: pro6000 }),
      findings: [
        {
          message: expect.stringContaining("(1 − 0.995) × 95.59 GiB leaves 0.48 GiB"),
          data: { total_bytes: 97887 * 2 ** 20, outside_bytes: Math.floor(0.005 * 97887 * 2 ** 20), max_utilization: 0.98 },
        },
      ],
    },
  ],
});
