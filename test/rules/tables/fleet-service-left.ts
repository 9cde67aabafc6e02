import { fleetServiceLeft } from "../../../src/checks/fleet-service-left.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { FLEET_H } from "../fixtures.js";

const A = "ENGINE=vllm\nHOST=h\nGPU=0\n";

export default ruleTester(fleetServiceLeft, {
  valid: [
    {
      name: "a deleted env file is a retired seat",
      beforeFiles: { "kvgate.yaml": FLEET_H, "scripts/a.env": A, "scripts/b.env": A },
      files: { "kvgate.yaml": FLEET_H, "scripts/b.env": A },
    },
    {
      name: "a new file outside the glob that only looks like a removed one's text is not it",
      beforeFiles: { "kvgate.yaml": FLEET_H, "scripts/a.env": A },
      files: { "kvgate.yaml": FLEET_H, "notes/a.env": `${A}# moved\n` },
    },
    {
      name: "a rename inside the glob",
      beforeFiles: { "kvgate.yaml": FLEET_H, "scripts/a.env": A },
      files: { "kvgate.yaml": FLEET_H, "scripts/c.env": A },
    },
    {
      name: "a glob changed but still matching every env file (scripts/*.env → scripts/**/*.env)",
      beforeFiles: { "kvgate.yaml": FLEET_H, "scripts/a.env": A },
      files: { "kvgate.yaml": `services: "scripts/**/*.env"\n${FLEET_H}`, "scripts/a.env": A },
    },
    {
      name: "a narrowed glob and the file it drops deleted in the same change: a retired seat",
      beforeFiles: { "kvgate.yaml": FLEET_H, "scripts/a.env": A, "scripts/b.env": A },
      files: { "kvgate.yaml": `services: "scripts/b*.env"\n${FLEET_H}`, "scripts/b.env": A },
    },
  ],
  invalid: [
    {
      // Under the new glob neither side holds scripts/a.env: only the before read under its own
      // kvgate.yaml (scripts/*.env) shows the seat the change stops checking.
      name: "kvgate.yaml narrows the services glob so an existing env file is no longer read",
      beforeFiles: { "kvgate.yaml": FLEET_H, "scripts/a.env": A, "scripts/b.env": A },
      files: { "kvgate.yaml": `services: "scripts/b*.env"\n${FLEET_H}`, "scripts/a.env": A, "scripts/b.env": A },
      findings: [
        {
          messageId: "narrowed",
          severity: "warning",
          file: "scripts/a.env",
          line: 1,
          message:
            'a: kvgate.yaml\'s services glob changed from "scripts/*.env" to "scripts/b*.env", which no longer matches scripts/a.env, so kvgate no longer checks it; set services: back to a glob that matches it, or delete the file if the seat is retired',
          data: { from: "scripts/*.env", glob: "scripts/b*.env" },
        },
      ],
    },
    {
      name: "moved to scripts/old/ (the same text under a path the glob does not match)",
      beforeFiles: { "kvgate.yaml": FLEET_H, "scripts/a.env": A },
      files: { "kvgate.yaml": FLEET_H, "scripts/old/a.env": A },
      findings: [
        {
          messageId: "renamed",
          severity: "warning",
          file: "scripts/old/a.env",
          line: 1,
          message:
            'a: scripts/a.env moved to scripts/old/a.env, outside the services glob "scripts/*.env", so kvgate no longer checks it; move it back under the glob, widen services: in kvgate.yaml, or delete the file if the seat is retired',
        },
      ],
    },
  ],
});
