import { expect } from "vitest";
import { gpuPlateau } from "../../../src/checks/gpu-plateau.js";
import { exact, ruleTester } from "../../helpers/rule-tester.js";

const GiB = 2 ** 30;
const lines = (...l: string[]): string => l.join("\n") + "\n";
const config = (observed = "observed: observed.yaml") =>
  lines("version: 1", "fleet:", "  hosts:", "    fv-ml1:", "      gpus:", "        - { index: 0, total: 96GiB, reserve: 1GiB }", observed);
const coder = (pin: string) =>
  lines(
    "ENGINE=vllm",
    "HOST=fv-ml1",
    "GPU=0",
    "MODEL=Qwen/Qwen3-8B",
    "MAX_MODEL_LEN=8192",
    `KV_CACHE_MEMORY_BYTES=${pin}`,
    `SERVE_ARGS="--override-generation-config '{\\"max_new_tokens\\":4096}'"`,
  );
/** observed.yaml with one card; `extra` lines go into the card (line 8 is the card's `- host:`). */
const observed = (plateau: number, ...extra: string[]) =>
  lines(
    "version: 1",
    'from: "2026-10-05T00:00:00Z"',
    'until: "2026-10-07T00:00:00Z"',
    "sources:",
    '  - "gpu.csv"',
    "cards:",
    "  # fv-ml1's only card",
    '  - host: "fv-ml1"',
    "    index: 0",
    `    plateau_free_bytes: ${plateau}`,
    '    plateau_at: "2026-10-06T10:00:00Z"',
    ...extra,
  );
const repo = (pin: string, obs: string, cfg = config()) => ({ "kvgate.yaml": cfg, "scripts/coder.env": coder(pin), "observed.yaml": obs });

export default ruleTester(gpuPlateau, {
  valid: [
    {
      name: "no observed: in kvgate.yaml: nothing to check",
      files: { "kvgate.yaml": config(""), "scripts/coder.env": coder("2GiB") },
      beforeFiles: null,
    },
    {
      name: "a change that adds 1 GiB to a card with 3 GiB free at plateau (reserve 1 GiB) leaves 2 GiB",
      files: repo("3GiB", observed(3 * GiB)),
      beforeFiles: repo("2GiB", observed(3 * GiB)),
    },
    {
      name: "a change that adds exactly the 2 GiB above the reserve passes (free after = reserve)",
      files: repo("4GiB", observed(3 * GiB)),
      beforeFiles: repo("2GiB", observed(3 * GiB)),
    },
    {
      name: "a change that frees memory on a card already below its reserve is not refused for it",
      files: repo("2GiB", observed(GiB / 2)),
      beforeFiles: repo("3GiB", observed(GiB / 2)),
    },
  ],
  invalid: [
    {
      name: "raising a pin by 3 GiB on a card with 3 GiB free at plateau: at the pin's line, 1 GiB short",
      files: repo("5GiB", observed(3 * GiB)),
      beforeFiles: repo("2GiB", observed(3 * GiB)),
      findings: [
        {
          file: "scripts/coder.env",
          line: 6,
          severity: "error",
          data: exact({
            host: "fv-ml1",
            gpu: 0,
            plateau_free_bytes: 3 * GiB,
            added_bytes: 3 * GiB,
            reserve_bytes: GiB,
            free_after_bytes: 0,
            short_bytes: GiB,
            observed_at: "2026-10-06T10:00:00Z",
          }),
          message: expect.stringMatching(
            /^fv-ml1 GPU 0: 3(\.00)? GiB free at plateau \(observed 2026-10-06\) − 3(\.00)? GiB this change adds leaves 0 B, below the reserve of 1(\.00)? GiB by 1(\.00)? GiB: headroom counts at plateau, not at boot; add at most 2(\.00)? GiB to this card/,
          ),
        },
      ],
    },
    {
      name: "--all: a card whose plateau is already below its reserve, at the card's line in observed.yaml",
      files: repo("2GiB", observed(GiB / 2)),
      beforeFiles: null,
      findings: [
        {
          file: "observed.yaml",
          line: 8,
          data: { plateau_free_bytes: GiB / 2, added_bytes: 0, free_after_bytes: GiB / 2, short_bytes: GiB / 2 },
        },
      ],
    },
    {
      name: "--all: what the layout added since the plateau was observed counts (used now − predicted_used_bytes then)",
      files: repo("4GiB", observed(2 * GiB, `    predicted_used_bytes: 0`)),
      beforeFiles: null,
      findings: [{ file: "observed.yaml", line: 8, data: { plateau_free_bytes: 2 * GiB, reserve_bytes: GiB } }],
    },
    {
      name: "a malformed value: at its line in observed.yaml",
      files: repo("2GiB", observed(3 * GiB).replace(`plateau_free_bytes: ${3 * GiB}`, "plateau_free_bytes: lots")),
      beforeFiles: null,
      findings: [{ file: "observed.yaml", line: 10, messageId: "malformed", message: expect.stringContaining("plateau_free_bytes") }],
    },
    {
      name: "not YAML: at the line the parser stops",
      files: repo("2GiB", lines("version: 1", "cards: [", "  - host: x")),
      beforeFiles: null,
      findings: [
        { file: "observed.yaml", line: 3, messageId: "malformed", message: expect.stringMatching(/^observed\.yaml:3: /) },
        { file: "observed.yaml", line: 4, messageId: "malformed" },
      ],
    },
    {
      name: "kvgate.yaml names an observed file the repository does not hold",
      files: { "kvgate.yaml": config(), "scripts/coder.env": coder("2GiB") },
      beforeFiles: null,
      findings: [{ messageId: "missing", file: null, message: expect.stringContaining("observed.yaml is not in the repository") }],
    },
    {
      name: "a card the fleet does not list: at its line",
      files: repo("2GiB", observed(3 * GiB).replace("    index: 0", "    index: 3")),
      beforeFiles: null,
      findings: [{ messageId: "unknown-card", file: "observed.yaml", line: 8, data: { host: "fv-ml1", gpu: 3 } }],
    },
  ],
});
