import { expect } from "vitest";
import { kvPreempted } from "../../../src/checks/kv-preempted.js";
import { exact, ruleTester } from "../../helpers/rule-tester.js";

const GiB = 2 ** 30;
const lines = (...l: string[]): string => l.join("\n") + "\n";
const config = lines(
  "version: 1",
  "fleet:",
  "  hosts:",
  "    fv-ml1:",
  "      gpus:",
  "        - { index: 0, total: 96GiB, reserve: 1GiB }",
  "observed: observed.yaml",
);
const coder = (kv: string) =>
  lines(
    "ENGINE=vllm",
    "HOST=fv-ml1",
    "GPU=0",
    "MODEL=Qwen/Qwen3-8B",
    "MAX_MODEL_LEN=8192",
    kv,
    `SERVE_ARGS="--override-generation-config '{\\"max_new_tokens\\":4096}'"`,
  );
/** observed.yaml with one card and the seat `coder`: 12 preemptions in two windows at KV `kv` (line 12: `- service:`). */
const observed = (kv: number | null, preemptions = 12, service = "coder") =>
  lines(
    "version: 1",
    'from: "2026-10-05T00:00:00Z"',
    'until: "2026-10-07T00:00:00Z"',
    "cards:",
    '  - host: "fv-ml1"',
    "    index: 0",
    `    plateau_free_bytes: ${8 * GiB}`,
    "seats:",
    "  # what vLLM's metrics said",
    "",
    "",
    `  - service: "${service}"`,
    `    kv_bytes: ${kv ?? "null"}`,
    "    peak_kv_usage: 1",
    `    preemptions: ${preemptions}`,
    ...(preemptions === 0
      ? ["    windows: []"]
      : [
          "    windows:",
          '      - { from: "2026-10-05T14:02:00.000Z", until: "2026-10-05T14:40:00.000Z", preemptions: 9 }',
          `      - { from: "2026-10-06T09:00:00.000Z", until: "2026-10-06T09:05:00.000Z", preemptions: ${preemptions - 9} }`,
        ]),
  );
const repo = (kv: string, obs: string) => ({ "kvgate.yaml": config, "scripts/coder.env": coder(kv), "observed.yaml": obs });

export default ruleTester(kvPreempted, {
  valid: [
    {
      name: "a seat that never preempted",
      files: repo("KV_CACHE_MEMORY_BYTES=2GiB", observed(2 * GiB, 0)),
      beforeFiles: null,
    },
    {
      name: "the pin raised above the 2 GiB it preempted at: answered until the next observation",
      files: repo("KV_CACHE_MEMORY_BYTES=2560MiB", observed(2 * GiB)),
      beforeFiles: repo("KV_CACHE_MEMORY_BYTES=2GiB", observed(2 * GiB)),
    },
    {
      name: "--all: the same, with no before side",
      files: repo("KV_CACHE_MEMORY_BYTES=3GiB", observed(2 * GiB)),
      beforeFiles: null,
    },
    {
      name: "no observed: in kvgate.yaml",
      files: { "kvgate.yaml": config.replace("observed: observed.yaml\n", ""), "scripts/coder.env": coder("KV_CACHE_MEMORY_BYTES=2GiB") },
      beforeFiles: null,
    },
  ],
  invalid: [
    {
      name: "committing an observation of 12 preemptions at the seat's 2 GiB pin: a warning at the pin's line",
      files: repo("KV_CACHE_MEMORY_BYTES=2GiB", observed(2 * GiB)),
      beforeFiles: {
        "kvgate.yaml": config,
        "scripts/coder.env": coder("KV_CACHE_MEMORY_BYTES=2GiB"),
        "observed.yaml": observed(2 * GiB, 0),
      },
      findings: [
        {
          file: "scripts/coder.env",
          line: 6,
          severity: "warning",
          service: "coder",
          data: exact({
            name: "coder",
            file: "observed.yaml",
            preemptions: 12,
            windows: 2,
            first: "2026-10-05T14:02:00.000Z",
            last: "2026-10-06T09:05:00.000Z",
            observed_kv_bytes: 2 * GiB,
            kv_bytes: 2 * GiB,
            key: "KV_CACHE_MEMORY_BYTES",
          }),
          message:
            "coder preempted 12 requests in 2 windows (2026-10-05 14:02 UTC → 2026-10-06 09:05 UTC, observed.yaml): vLLM ran out of KV cache and recomputed them, so its KV was too small for its traffic; its KV is 2 GiB now, not above the 2 GiB it had then: raise KV_CACHE_MEMORY_BYTES above 2 GiB (`kvgate usage` sizes it from the traffic), then observe again",
        },
      ],
    },
    {
      name: "a change that lowers the pin of a seat that preempted: the finding moves with it (the KV it names changed)",
      files: repo("KV_CACHE_MEMORY_BYTES=1536MiB", observed(2 * GiB)),
      beforeFiles: repo("KV_CACHE_MEMORY_BYTES=2GiB", observed(2 * GiB)),
      findings: [{ file: "scripts/coder.env", line: 6, data: { kv_bytes: 1.5 * GiB, observed_kv_bytes: 2 * GiB } }],
    },
    {
      name: "the pin set by its flag: the message names the flag, as the file spells it",
      files: {
        ...repo("# pinned by the flag below", observed(2 * GiB)),
        "scripts/coder.env": coder("# pinned by the flag below").replace('SERVE_ARGS="', 'SERVE_ARGS="--kv-cache-memory-bytes 2147483648 '),
      },
      beforeFiles: null,
      findings: [
        {
          line: 7,
          data: { key: "--kv-cache-memory-bytes" },
          message: expect.stringContaining("raise --kv-cache-memory-bytes above 2 GiB"),
        },
      ],
    },
    {
      name: "an unpinned seat: the utilization is what to raise",
      files: repo("GPU_MEMORY_UTILIZATION=0.2", observed(null)),
      beforeFiles: null,
      findings: [
        {
          line: 6,
          data: { key: "GPU_MEMORY_UTILIZATION", observed_kv_bytes: null },
          message: expect.stringContaining(
            "observed.yaml does not record the KV it had then: raise GPU_MEMORY_UTILIZATION, then observe again",
          ),
        },
      ],
    },
    {
      name: "a seat the fleet does not have: at its line in observed.yaml",
      files: repo("KV_CACHE_MEMORY_BYTES=2GiB", observed(2 * GiB, 12, "gone")),
      beforeFiles: null,
      findings: [{ messageId: "unknown-seat", file: "observed.yaml", line: 12, data: { name: "gone" } }],
    },
  ],
});
