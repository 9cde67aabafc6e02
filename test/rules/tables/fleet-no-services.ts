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
      name: "seats under env/ and hosts/b/ while the glob says scripts/*.env: found by discovery, the fix names both folders",
      files: { "kvgate.yaml": FLEET_H, "env/a.env": "ENGINE=vllm\n", "hosts/b/c.env": "VLLM_IMAGE=vllm/vllm-openai:v0.11.0\n" },
      findings: [
        {
          severity: "warning",
          file: null,
          data: { found: "{env/*.env,hosts/b/*.env}" },
          message:
            'no file matches the services glob "scripts/*.env"; kvgate found the seats by discovery (env/a.env, hosts/b/c.env): set services: "{env/*.env,hosts/b/*.env}" in kvgate.yaml (kvgate init writes it) so the gate reads what you mean',
        },
      ],
    },
    {
      name: "env files under env/ that run no engine: the fix names env/*.env, if they are services",
      files: { "kvgate.yaml": FLEET_H, "env/a.env": "PORT=80\n" },
      findings: [
        {
          message:
            'no file matches the services glob "scripts/*.env", and no env file of the repository runs an engine kvgate knows or holds a GPU, so kvgate checked no service; if env/*.env are your services, set services: "env/*.env" in kvgate.yaml',
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
