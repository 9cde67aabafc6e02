import { expect } from "vitest";
import { engineRemovedFlag } from "../../../src/checks/engine-removed-flag.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { FLEET_H, radianceEnv } from "../fixtures.js";

export default ruleTester(engineRemovedFlag, {
  valid: [
    {
      name: "allowed on radiance 1.8.0",
      files: { "kvgate.yaml": FLEET_H, "scripts/r.env": radianceEnv('RADIANCE_VERSION=1.8.0\nSERVE_ARGS="--vram-kv-mib 4096"') },
    },
    { name: "not a radiance flag on vLLM", files: { "scripts/v.env": 'ENGINE=vllm\nSERVE_ARGS="--vram-kv-mib 4096"' } },
  ],
  invalid: [
    {
      name: "--vram-kv-mib on radiance (newest by default) is an error at its line",
      files: { "kvgate.yaml": FLEET_H, "scripts/r.env": radianceEnv('SERVE_ARGS="--vram-kv-mib 4096"') },
      findings: [
        { severity: "error", line: 4, message: expect.stringMatching(/--vram-kv-mib was removed in radiance 1\.8\.1.*--max-num-seqs/) },
      ],
    },
    {
      name: "the env spelling VRAM_WEIGHTS_MIB too",
      files: { "kvgate.yaml": FLEET_H, "scripts/r.env": radianceEnv("VRAM_WEIGHTS_MIB=9800") },
      findings: [{ line: 4 }],
    },
  ],
});
