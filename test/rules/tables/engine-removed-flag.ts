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
    {
      name: "--kv-cache-memory-bytes on vLLM 0.10.2, the release that added it",
      files: {
        "kvgate.yaml": FLEET_H,
        "deploy/v.env":
          'VLLM_IMAGE=vllm/vllm-openai:v0.10.2\nHOST=h\nGPU=0\nVLLM_EXTRA_ARGS="--model Qwen/Qwen3-0.6B --kv-cache-memory-bytes 2G"\n',
      },
    },
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
      name: "--kv-cache-memory-bytes on vLLM 0.8.5 (the image tag): its argument parser refuses the flag, so the seat never boots",
      files: {
        "kvgate.yaml": FLEET_H,
        "deploy/v.env":
          'VLLM_IMAGE=vllm/vllm-openai:v0.8.5\nHOST=h\nGPU=0\nVLLM_EXTRA_ARGS="--model Qwen/Qwen3-0.6B --kv-cache-memory-bytes 2G"\n',
      },
      findings: [
        {
          messageId: "not-yet",
          file: "deploy/v.env",
          line: 4,
          data: { spelled: "--kv-cache-memory-bytes", version: "0.8.5", since: "0.10.2" },
          message: expect.stringContaining("--kv-cache-memory-bytes does not exist in vLLM 0.8.5 (it came in 0.10.2)"),
        },
      ],
    },
    {
      name: "the env spelling VRAM_WEIGHTS_MIB too",
      files: { "kvgate.yaml": FLEET_H, "scripts/r.env": radianceEnv("VRAM_WEIGHTS_MIB=9800") },
      findings: [{ line: 4 }],
    },
  ],
});
