import { expect } from "vitest";
import { fleetUnknownCard } from "../../../src/checks/fleet-unknown-card.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { FLEET_H } from "../fixtures.js";

// A seat only a compose file defines (no env file): the advice is its compose spelling, and applied as
// written (the device_ids line added) the finding is gone.
const seatOnly = (...gpu: string[]): string =>
  [
    "services:",
    "  coder:",
    "    image: vllm/vllm-openai:v0.10.2",
    "    command: [Qwen/Qwen3-8B, --max-model-len, '8192']",
    ...gpu,
    "",
  ].join("\n");
const fix = ["    deploy:", "      resources:", "        reservations:", '          devices: [{ capabilities: [gpu], device_ids: ["1"] }]'];

export default ruleTester(fleetUnknownCard, {
  valid: [
    { name: "a known host and card", files: { "kvgate.yaml": FLEET_H, "scripts/r.env": "ENGINE=radiance\nHOST=h\nGPU=1\n" } },
    {
      name: "the compose seat given the card its advice names",
      files: { "kvgate.yaml": FLEET_H, "deploy/compose.yaml": seatOnly(...fix) },
    },
    {
      name: "a host not in the inventory (fleet/unknown-host's)",
      files: { "kvgate.yaml": FLEET_H, "scripts/r.env": "ENGINE=radiance\nHOST=nope\nGPU=0\n" },
    },
  ],
  invalid: [
    {
      name: "a card the host lacks",
      files: { "kvgate.yaml": FLEET_H, "scripts/r.env": "ENGINE=radiance\nHOST=h\nGPU=0,3\n" },
      findings: [{ line: 3, message: expect.stringMatching(/GPU 3 is not a card of h \(cards: 0, 1\)/) }],
    },
    {
      name: "a compose-only seat with no card on a host with several: the advice is device_ids, at its compose key",
      files: { "kvgate.yaml": FLEET_H, "deploy/compose.yaml": seatOnly() },
      findings: [
        {
          messageId: "missing_compose",
          file: "deploy/compose.yaml",
          line: 2,
          message: expect.stringContaining(
            'give its compose service a card: deploy.resources.reservations.devices: [{ capabilities: [gpu], device_ids: ["<index>"] }]',
          ),
        },
      ],
    },
    {
      name: "a compose seat on a card the host lacks: the advice names device_ids, at its line",
      files: { "kvgate.yaml": FLEET_H, "deploy/compose.yaml": seatOnly("    gpus: [{ device_ids: ['5'] }]") },
      findings: [
        {
          file: "deploy/compose.yaml",
          line: 5,
          message: expect.stringContaining("GPU 5 is not a card of h (cards: 0, 1); fix device_ids"),
        },
      ],
    },
    {
      name: "no GPU on a host with two cards: which one it holds is not said",
      files: { "kvgate.yaml": FLEET_H, "scripts/r.env": "ENGINE=radiance\nHOST=h\n" },
      findings: [{ messageId: "missing", line: 1, message: "r: no GPU, and h has several cards (0, 1); add GPU=<index>" }],
    },
  ],
});
