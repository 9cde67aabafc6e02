import { expect } from "vitest";
import { fleetUnsized } from "../../../src/checks/fleet-unsized.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { FLEET_H } from "../fixtures.js";

// A seat kvgate sized: its card in the inventory, its model in the catalog (Qwen/Qwen3-8B: 147,456
// B/token, 15.3 GiB of weights), every setting read.
const SEAT = "ENGINE=vllm\nHOST=h\nGPU=0\nMODEL=Qwen/Qwen3-8B\nMAX_MODEL_LEN=32768\nKV_CACHE_MEMORY_BYTES=6442450944\n";
const LEDGER = [
  "cards:",
  "  - { index: 0, card_total_mib: 98304, already_held_mib: 410, drift_mib: 64, arena_mib: 987, step_staging_mib: 256, hw_queues_mib: 96, prefetch_mib: 128, static_weights_mib: 9800 }",
  "plane_mib: 14000",
  "spare_mib: 512",
  "unit_max_mib: 700",
  "kv_bytes_per_token: 73728",
  "block_size: 16",
  "",
].join("\n");

export default ruleTester(fleetUnsized, {
  valid: [
    { name: "a seat with its card, model and settings known", files: { "kvgate.yaml": FLEET_H, "scripts/a.env": SEAT } },
    {
      name: "a model kvgate does not know is engine/unknown-model's refusal, not this rule's",
      files: { "kvgate.yaml": FLEET_H, "scripts/a.env": SEAT.replace("Qwen/Qwen3-8B", "acme/unknown-7b") },
    },
    {
      name: "a host missing from a non-empty inventory is fleet/unknown-host's",
      files: { "kvgate.yaml": FLEET_H, "scripts/a.env": SEAT.replace("HOST=h", "HOST=elsewhere") },
    },
    {
      name: "a radiance endpoint with its ledger facts",
      files: { "kvgate.yaml": FLEET_H, "scripts/r.env": "ENGINE=radiance\nHOST=h\nGPU=0\n", "scripts/r.ledger.yaml": LEDGER },
    },
    { name: "a service that is not an engine (no GPU, no engine signal)", files: { "scripts/ui.env": "WEBUI_PORT=3000\n" } },
    {
      name: "a new radiance endpoint before its first boot (no ledger facts yet): deployable, its funding unchecked",
      files: { "kvgate.yaml": FLEET_H, "scripts/r.env": "ENGINE=radiance\nHOST=h\nGPU=0\n" },
    },
  ],
  invalid: [
    {
      name: "no card inventory at all: the seat's card memory is unknown; the stanza to add names its host and card",
      files: { "scripts/a.env": SEAT.replace("GPU=0", "GPU=1") },
      findings: [
        {
          file: "scripts/a.env",
          line: 1,
          service: "a",
          data: { what: ["cards"] },
          message: expect.stringContaining(
            "no card inventory: kvgate.yaml lists no fleet.hosts, so the card's memory is unknown; add fleet: { hosts: { h: { gpus: [{ index: 1, total: <GiB> }] } } }",
          ),
        },
      ],
    },
    {
      name: "KV_BYTES_PER_TOKEN without WEIGHTS_MIB: the footprint cannot be worked out",
      files: { "kvgate.yaml": FLEET_H, "scripts/a.env": SEAT.replace("Qwen/Qwen3-8B", "acme/unknown-7b") + "KV_BYTES_PER_TOKEN=131072\n" },
      findings: [{ line: 1, data: { what: ["weights"] }, message: expect.stringContaining("set WEIGHTS_MIB") }],
    },
    {
      name: "a radiance endpoint and no card inventory",
      files: { "scripts/r.env": "ENGINE=radiance\nHOST=h\nGPU=0\n", "scripts/r.ledger.yaml": LEDGER },
      findings: [{ service: "r", data: { what: ["cards"] }, message: expect.stringContaining("no card inventory") }],
    },
    {
      name: "a compose command whose --max-model-len is a variable the .env does not define",
      files: {
        "kvgate.yaml": FLEET_H,
        "compose.yaml": [
          "services:",
          "  chat:",
          "    image: vllm/vllm-openai:v0.11.0",
          '    command: ["Qwen/Qwen3-8B", "--max-model-len", "${CTX}", "--kv-cache-memory-bytes", "6442450944"]',
          "    environment: { HOST: h, GPU: '0' }",
          "",
        ].join("\n"),
      },
      findings: [
        {
          file: "compose.yaml",
          line: 2,
          service: "chat",
          data: { what: ["setting"] },
          message: expect.stringContaining("could not be read"),
        },
      ],
    },
  ],
});
