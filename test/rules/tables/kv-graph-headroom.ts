import { kvGraphHeadroom } from "../../../src/checks/kv-graph-headroom.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { expect } from "vitest";
import { GiB, kvCase, policyOf, seat, voices } from "../../kv/fixtures.js";

const MiB = 2 ** 20;
// A 24 GiB card (a small-card class: 2,048 batched tokens, 256 sequences on vLLM 0.11). Qwen3-8B: 36
// layers; its graphs on 0.11 (FULL_AND_PIECEWISE): 36 × (51 piecewise sizes + 35 full decode graphs) ×
// 4,096 hidden × 100 B = 1,209 MiB. The profile's peak, freed before the capture: the larger of 2,048 × 2 B × (8 ×
// 4,096 + 2 × 12,288) = 224 MiB and the dummy sampler's 256 × 151,936 × 36 B = 1,335.4 MiB.
const card24 = policyOf({ fleet: { hosts: { "fv-ml1": { gpus: [{ index: 0, total: "24GiB" }] } } } });
const GRAPHS = 36 * 86 * 4096 * 100;
const PEAK = 256 * 151936 * 36;
const unpinned = (env: Record<string, string | undefined>) =>
  seat("qwen", { MODEL: "Qwen/Qwen3-8B", MAX_MODEL_LEN: "28672", VLLM_VERSION: "0.11.0", ...env });
// At 0.99: (1 − 0.99) × 24 GiB = 245.76 MiB − 512 MiB context + 1,335.4 MiB = 1,069 MiB < 1,209 MiB.
const OUTSIDE_099 = Math.floor((1 - 0.99) * 24 * GiB);

export default ruleTester(kvGraphHeadroom, {
  valid: [
    kvCase("0.97 of 24 GiB leaves 0.72 GiB − 0.5 + 1.3: room for the 1,209 MiB of graphs", [unpinned({ GPU_MEMORY_UTILIZATION: "0.9" })], {
      policy: card24,
    }),
    kvCase("--enforce-eager captures no graphs", [unpinned({ GPU_MEMORY_UTILIZATION: "0.99", ENFORCE_EAGER: "1" })], { policy: card24 }),
    kvCase("vLLM 0.21 and later profile graphs inside the budget", [unpinned({ GPU_MEMORY_UTILIZATION: "0.99", VLLM_VERSION: "0.21.0" })], {
      policy: card24,
    }),
    kvCase("a pinned seat on a 96 GiB card: 96 − 15.3 − 7.5 − 0.25 − 0.5 GiB left for its graphs", [voices({ VLLM_VERSION: "0.11.0" })]),
  ],
  invalid: [
    {
      ...kvCase("0.99 of 24 GiB on vLLM 0.11: 1,069 MiB for 1,209 MiB of graphs", [unpinned({ GPU_MEMORY_UTILIZATION: "0.99" })], {
        policy: card24,
      }),
      findings: [
        {
          messageId: "short",
          severity: "error",
          message: expect.stringContaining(
            "qwen: CUDA graphs are captured outside --gpu-memory-utilization on this vLLM version: they take 1.18 GiB (",
          ),
          data: {
            graph_bytes: GRAPHS,
            outside_bytes: OUTSIDE_099,
            free_bytes: OUTSIDE_099 - 512 * MiB + PEAK,
            activation_bytes: PEAK,
            // (24,576 − 512 + 1,335.4 − 1,209) / 24,576 MiB = 0.984
            max_utilization: 0.98,
            // 0.98 still leaves the estimate (6.66 GiB) above the 5 GiB 28,672 tokens need: the fix is a value
            fix: { file: "scripts/qwen.env", key: "GPU_MEMORY_UTILIZATION", value: "0.98" },
            vllm_version: "0.11.0",
          },
        },
      ],
    },
    {
      // 24 − 15.3 (weights) − 7.5 (pin) − 0.25 (non-torch) − 0.5 (context) = 0.45 GiB < 1.18 GiB; a pin
      // small enough would no longer hold the 7.5 GiB 40,960 tokens need, so only --enforce-eager fixes it
      ...kvCase("a pinned seat on a 24 GiB card: its graphs get what the weights and the pin leave", [voices({ VLLM_VERSION: "0.11.0" })], {
        policy: card24,
      }),
      findings: [
        {
          messageId: "pinned",
          message: expect.stringMatching(/with a KV pin vLLM skips profiling .*below the 1\.18 GiB they take .*; add --enforce-eager$/),
          data: { graph_bytes: GRAPHS },
        },
      ],
    },
    {
      // No version named: on 0.19–0.20 the graphs are outside the budget and do not fit; 0.21 profiles them inside.
      ...kvCase(
        "no version named: fails on 0.19–0.20 only, a warning naming them",
        [unpinned({ GPU_MEMORY_UTILIZATION: "0.99", VLLM_VERSION: undefined })],
        {
          policy: card24,
        },
      ),
      findings: [
        {
          messageId: "short",
          severity: "warning",
          message: expect.stringContaining("(on vLLM 0.19.0–0.20.0 only, of the 0.19.0–0.21.0 engines.vllm.versions allows"),
          data: { failing_vllm_versions: ["0.19.0", "0.20.0"] },
        },
      ],
    },
  ],
});
