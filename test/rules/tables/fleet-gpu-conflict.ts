import { fleetGpuConflict } from "../../../src/checks/fleet-gpu-conflict.js";
import { exact, ruleTester } from "../../helpers/rule-tester.js";
import { FLEET_H } from "../fixtures.js";

export default ruleTester(fleetGpuConflict, {
  valid: [
    {
      name: "a tenant whose env file names the tenant's own card",
      files: {
        "kvgate.yaml": `${FLEET_H}  tenants:\n    - { name: asr, host: h, gpu: 1, vram: 3GiB }\n`,
        "scripts/asr.env": "ASR_IMAGE=nvcr.io/nvidia/riva/riva-speech:2.19.0\nCUDA_VISIBLE_DEVICES=1\n",
      },
    },
    {
      name: "GPU and CUDA_VISIBLE_DEVICES name the same cards (spaces aside)",
      files: { "kvgate.yaml": FLEET_H, "scripts/a.env": "ENGINE=vllm\nHOST=h\nGPU=0,1\nCUDA_VISIBLE_DEVICES=0, 1\n" },
    },
    {
      name: "only CUDA_VISIBLE_DEVICES",
      files: { "kvgate.yaml": FLEET_H, "scripts/a.env": "ENGINE=vllm\nHOST=h\nCUDA_VISIBLE_DEVICES=1\n" },
    },
  ],
  invalid: [
    {
      name: "a tenant of kvgate.yaml on gpu 0 whose own env file asks CUDA_VISIBLE_DEVICES=1",
      files: {
        "kvgate.yaml": `${FLEET_H}  tenants:\n    - { name: asr, host: h, gpu: 0, vram: 3GiB }\n`,
        "scripts/asr.env": "ASR_IMAGE=nvcr.io/nvidia/riva/riva-speech:2.19.0\nCUDA_VISIBLE_DEVICES=1\n",
      },
      findings: [
        {
          messageId: "tenant",
          file: "scripts/asr.env",
          line: 2,
          service: "asr",
          data: { key: "CUDA_VISIBLE_DEVICES", cards: "1", host: "h", gpu: 0 },
        },
      ],
    },
    {
      name: "GPU=0, CUDA_VISIBLE_DEVICES=1",
      files: { "kvgate.yaml": FLEET_H, "scripts/a.env": "ENGINE=vllm\nHOST=h\nGPU=0\nCUDA_VISIBLE_DEVICES=1\n" },
      findings: [
        {
          line: 3,
          service: "a",
          message: "a: GPU=0 but CUDA_VISIBLE_DEVICES=1 (line 4) names other cards; set CUDA_VISIBLE_DEVICES=0, or delete one of the two",
          data: exact({ service: "a", gpu: "0", cuda: "1", cudaLine: 4 }),
        },
      ],
    },
    {
      name: "the same cards in another order are other ranks: GPU=0,1 vs CUDA_VISIBLE_DEVICES=1,0",
      files: { "kvgate.yaml": FLEET_H, "scripts/a.env": "CUDA_VISIBLE_DEVICES=1,0\nENGINE=vllm\nHOST=h\nGPU=0,1\n" },
      findings: [{ line: 4, data: { gpu: "0,1", cuda: "1,0", cudaLine: 1 } }],
    },
  ],
});
