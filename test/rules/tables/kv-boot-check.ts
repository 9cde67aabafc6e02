import { kvBootCheck } from "../../../src/checks/kv-boot-check.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { GiB, kvCase, seat, voices } from "../../kv/fixtures.js";

const asked = Math.round(0.92 * 96 * GiB);
const coder = (env: Record<string, string> = {}) => seat("coder", { MODEL: "Qwen/Qwen2.5-Coder-7B-Instruct", ...env });

// Findings are sorted by file: scripts/coder.env before scripts/voices.env.
export default ruleTester(kvBootCheck, {
  valid: [
    kvCase("pinned seats that ask for little enough to boot last", [
      voices({ GPU_MEMORY_UTILIZATION: "0.3" }),
      coder({ MAX_MODEL_LEN: "32768", KV_CACHE_MEMORY_BYTES: String(2.5 * GiB), GPU_MEMORY_UTILIZATION: "0.3" }),
    ]),
  ],
  invalid: [
    {
      ...kvCase("two seats on one card both at the default 0.92", [voices({ KV_CACHE_MEMORY_BYTES: undefined }), coder()]),
      findings: [
        { service: "coder" },
        { service: "voices", data: { utilization: 0.92, total_bytes: 96 * GiB, asked_bytes: asked, others_bytes: asked, free_bytes: 96 * GiB - asked, max_utilization: 0.08 } },
      ],
    },
    {
      // voices: 15.3 GiB weights + 7.5 GiB + 2 GiB
      ...kvCase("a pinned seat whose utilization asks more than the neighbours leave", [voices(), coder({ MAX_MODEL_LEN: "32768", KV_CACHE_MEMORY_BYTES: String(2.5 * GiB), GPU_MEMORY_UTILIZATION: "0.9" })]),
      findings: [{ service: "coder", data: { utilization: 0.9 } }, { service: "voices" }],
    },
  ],
});
