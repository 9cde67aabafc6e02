import { fleetTenantIsService } from "../../../src/checks/fleet-tenant-is-service.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { FLEET_H } from "../fixtures.js";

const tenant = (name: string) => `${FLEET_H}  tenants:\n    - { name: ${name}, host: h, gpu: 0, vram: 3GiB }\n`;

export default ruleTester(fleetTenantIsService, {
  valid: [
    { name: "a tenant of its own name", files: { "kvgate.yaml": tenant("asr"), "scripts/coder.env": "ENGINE=vllm\nHOST=h\nGPU=0\n" } },
    {
      name: "a tenant that sizes a generic-engine service of its name",
      files: { "kvgate.yaml": `${tenant("asr")}engines: { generic: [nemo] }\n`, "scripts/asr.env": "ENGINE=nemo\nHOST=h\nGPU=0\n" },
    },
  ],
  invalid: [
    {
      name: "a tenant named like a vLLM seat",
      files: { "kvgate.yaml": tenant("coder"), "scripts/coder.env": "ENGINE=vllm\nHOST=h\nGPU=0\n" },
      findings: [
        {
          severity: "warning",
          service: "coder",
          message:
            "tenant coder in kvgate.yaml has the name of the seat scripts/coder.env, which kvgate sizes from its env file: counted once, as the seat; delete the tenant from fleet.tenants (or rename it if it is another process)",
        },
      ],
    },
  ],
});
