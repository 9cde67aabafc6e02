import { expect } from "vitest";
import { fleetUnknownCard } from "../../../src/checks/fleet-unknown-card.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { FLEET_H } from "../fixtures.js";

export default ruleTester(fleetUnknownCard, {
  valid: [
    { name: "a known host and card", files: { "kvgate.yaml": FLEET_H, "scripts/r.env": "ENGINE=radiance\nHOST=h\nGPU=1\n" } },
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
      name: "no GPU on a host with two cards: which one it holds is not said",
      files: { "kvgate.yaml": FLEET_H, "scripts/r.env": "ENGINE=radiance\nHOST=h\n" },
      findings: [{ messageId: "missing", line: 1, message: "r: no GPU, and h has several cards (0, 1); add GPU=<index>" }],
    },
  ],
});
