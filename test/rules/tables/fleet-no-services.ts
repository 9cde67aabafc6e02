import { fleetNoServices } from "../../../src/checks/fleet-no-services.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { FLEET_H } from "../fixtures.js";

export default ruleTester(fleetNoServices, {
  valid: [
    { name: "the glob matches an env file", files: { "kvgate.yaml": FLEET_H, "scripts/a.env": "ENGINE=vllm\n" } },
    {
      name: "a staged change is not --all",
      files: { "kvgate.yaml": FLEET_H, "README.md": "x\n" },
      beforeFiles: { "kvgate.yaml": FLEET_H },
    },
  ],
  invalid: [
    {
      name: "env files under env/ while the glob says scripts/*.env: the fix names env/*.env",
      files: { "kvgate.yaml": FLEET_H, "env/a.env": "ENGINE=vllm\n" },
      findings: [
        {
          severity: "warning",
          file: null,
          message:
            'no file matches the services glob "scripts/*.env", so kvgate checked no service; env files live elsewhere: set services: "env/*.env" in kvgate.yaml',
        },
      ],
    },
    {
      name: "no .env file anywhere",
      files: { "kvgate.yaml": FLEET_H },
      findings: [
        {
          message:
            'no file matches the services glob "scripts/*.env" and the repository has no .env file: kvgate checked no service; set services: in kvgate.yaml to the glob of your env files',
        },
      ],
    },
  ],
});
