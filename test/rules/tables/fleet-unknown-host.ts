import { fleetUnknownHost } from "../../../src/checks/fleet-unknown-host.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { FLEET_H } from "../fixtures.js";

export default ruleTester(fleetUnknownHost, {
  valid: [
    { name: "a known host and card", files: { "kvgate.yaml": FLEET_H, "scripts/r.env": "ENGINE=radiance\nHOST=h\nGPU=1\n" } },
    {
      name: "a known host with a card it lacks (fleet/unknown-card's)",
      files: { "kvgate.yaml": FLEET_H, "scripts/r.env": "ENGINE=radiance\nHOST=h\nGPU=0,3\n" },
    },
  ],
  invalid: [
    {
      name: "a host not in the inventory",
      files: { "kvgate.yaml": FLEET_H, "scripts/r.env": "ENGINE=radiance\nHOST=nope\nGPU=0\n" },
      findings: [{ messageId: "unknown", line: 2 }],
    },
    {
      name: "no HOST while the inventory has two hosts",
      files: { "kvgate.yaml": `${FLEET_H}    g: { gpus: [ { index: 0, total: 48GiB } ] }\n`, "scripts/r.env": "ENGINE=radiance\nGPU=0\n" },
      findings: [
        { messageId: "missing", line: 1, message: "r: no HOST, and the inventory has several hosts (h, g); add HOST=<one of them>" },
      ],
    },
  ],
});
