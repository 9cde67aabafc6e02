import { kvBootCheck } from "../../../src/checks/kv-boot-check.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { expect } from "vitest";
import { GiB, kvCase, policyOf, seat, tenant, voices } from "../../kv/fixtures.js";
import { MiB } from "../../../src/units/bytes.js";

const asked = Math.round(0.92 * 96 * GiB);
// Beside a 10 GiB tenant, 96 − 10 − 0.5 GiB (the booting seat's own CUDA context) = 85.5 GiB is free.
const besideTenant = (util: string) =>
  kvCase(`voices at ${util} beside a 10 GiB tenant`, [voices({ GPU_MEMORY_UTILIZATION: util })], { tenants: [tenant("asr", 0, 10 * GiB)] });
const coder = (env: Record<string, string> = {}) => seat("coder", { MODEL: "Qwen/Qwen2.5-Coder-7B-Instruct", ...env });

// An RTX PRO 6000 sold as "96 GB" reports 97,887 MiB (95.59 GiB) to CUDA. A seat at 0.85 beside a
// 14,208 MiB tenant: on 96 GiB it asks 83,558 MiB of the 98,304 − 14,208 − 512 = 83,584 MiB free (boots);
// on the CUDA total it asks 0.85 × 97,887 = 83,204 MiB of 97,887 − 14,208 − 512 = 83,167 MiB (refused,
// 37 MiB short): the most it may ask is floor(83,167 / 97,887 × 100) / 100 = 0.84.
const pro6000 = policyOf({ fleet: { hosts: { "fv-ml1": { gpus: [{ index: 0, total: "96GiB", cuda_total: "97887MiB" }] } } } });
const besideBigTenant = (policy?: ReturnType<typeof policyOf>) =>
  kvCase(
    `voices at 0.85 beside a 14,208 MiB tenant${policy ? " on a 97,887 MiB CUDA total" : ""}`,
    [voices({ GPU_MEMORY_UTILIZATION: "0.85" })],
    { tenants: [tenant("asr", 0, 14208 * MiB)], ...(policy ? { policy } : {}) },
  );

// Findings are sorted by file: scripts/coder.env before scripts/voices.env.
export default ruleTester(kvBootCheck, {
  valid: [
    { ...besideBigTenant(), name: "0.85 × 96 GiB = 83,558 MiB ≤ 83,584 MiB free: without cuda_total the card's size is its CUDA total" },
    kvCase("pinned seats that ask for little enough to boot last", [
      voices({ GPU_MEMORY_UTILIZATION: "0.3" }),
      coder({ MAX_MODEL_LEN: "32768", KV_CACHE_MEMORY_BYTES: String(2.5 * GiB), GPU_MEMORY_UTILIZATION: "0.3" }),
    ]),
    { ...besideTenant("0.89"), name: "0.89 × 96 GiB = 85.44 GiB ≤ 85.5 GiB free once its own CUDA context is up" },
  ],
  invalid: [
    {
      ...besideBigTenant(pro6000),
      findings: [
        {
          service: "voices",
          data: {
            total_bytes: 97887 * MiB,
            card_total_bytes: 96 * GiB,
            asked_bytes: Math.round(0.85 * 97887 * MiB),
            free_bytes: 83167 * MiB,
            max_utilization: 0.84,
          },
        },
      ],
    },
    {
      ...besideTenant("0.895"),
      name: "0.895 × 96 GiB = 85.92 GiB: under the 86 GiB the tenant leaves, over the 85.5 GiB left after its own 512 MiB CUDA context",
      findings: [
        {
          service: "voices",
          data: {
            asked_bytes: Math.round(0.895 * 96 * GiB),
            others_bytes: 10 * GiB,
            free_bytes: 85.5 * GiB,
            context_overhead_bytes: 512 * MiB,
            max_utilization: 0.89,
          },
        },
      ],
    },
    {
      ...kvCase("two seats on one card both at the default 0.92", [voices({ KV_CACHE_MEMORY_BYTES: undefined }), coder()]),
      findings: [
        { service: "coder" },
        {
          service: "voices",
          data: {
            utilization: 0.92,
            total_bytes: 96 * GiB,
            asked_bytes: asked,
            others_bytes: asked,
            free_bytes: 96 * GiB - asked - 512 * MiB,
            context_overhead_bytes: 512 * MiB,
            max_utilization: 0.07,
          },
        },
      ],
    },
    {
      // voices: 15.3 GiB weights + 7.5 GiB + 2 GiB
      ...kvCase("a pinned seat whose utilization asks more than the neighbours leave", [
        voices(),
        coder({ MAX_MODEL_LEN: "32768", KV_CACHE_MEMORY_BYTES: String(2.5 * GiB), GPU_MEMORY_UTILIZATION: "0.9" }),
      ]),
      findings: [{ service: "coder", data: { utilization: 0.9 } }, { service: "voices" }],
    },
    {
      // voices holds 15.3 + 7.5 + 2 = 24.8 GiB, leaving 71.2 GiB, less coder's own CUDA context (0.5 GiB):
      // 70.7 GiB, so coder may ask 0.73 of 96 GiB. Its own
      // footprint is 14.2 + 2.5 + 2 = 18.7 GiB (0.2 of the card), so 0.74 is a utilization it loads in.
      // It set utilization by flag: the fix names the flag, at the flag's line.
      ...kvCase("utilization set by flag: the fix changes the flag", [
        voices({ GPU_MEMORY_UTILIZATION: "0.3" }),
        seat(
          "coder",
          { MODEL: "Qwen/Qwen2.5-Coder-7B-Instruct", MAX_MODEL_LEN: "32768", KV_CACHE_MEMORY_BYTES: String(2.5 * GiB) },
          { "--gpu-memory-utilization": "0.9" },
        ),
      ]),
      findings: [
        {
          service: "coder",
          data: {
            max_utilization: 0.73,
            min_utilization: 0.2,
            fix: { file: "scripts/coder.env", line: 7, key: "--gpu-memory-utilization", value: "0.73" },
          },
          message: expect.stringContaining("set --gpu-memory-utilization 0.73 or lower, down to 0.2"),
        },
      ],
    },
    {
      // coder pins 70 GiB (14.2 + 70 + 2 = 86.2 GiB): voices (24.8 GiB of its own, 0.26) would have to
      // ask at most 0.09 (9.8 GiB free, less its own 0.5 GiB CUDA context). No utilization both boots last and loads the seat: no value fix, and never 0.
      ...kvCase("an over-full card: no utilization is advised", [
        voices({ GPU_MEMORY_UTILIZATION: "0.3" }),
        coder({ MAX_MODEL_LEN: "32768", KV_CACHE_MEMORY_BYTES: String(70 * GiB), GPU_MEMORY_UTILIZATION: "0.05" }),
      ]),
      findings: [
        {
          service: "voices",
          data: { max_utilization: 0.09, min_utilization: 0.26 },
          message: expect.stringMatching(
            /no utilization fits: the seat needs at least 0\.26 of the card, the neighbours leave 0\.09; move a seat off fv-ml1 gpu 0 \(kvgate plan --host fv-ml1\)/,
          ),
        },
      ],
    },
  ],
});
