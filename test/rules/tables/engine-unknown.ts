import { engineUnknown } from "../../../src/checks/engine-unknown.js";
import { exact, ruleTester } from "../../helpers/rule-tester.js";
import { FLEET_H } from "../fixtures.js";

const typo = "ENGINE=vlm\nHOST=h\nGPU=1\nMODEL=Qwen/Qwen3-8B\nMAX_MODEL_LEN=40960\nKV_CACHE_MEMORY_BYTES=1073741824\n";

export default ruleTester(engineUnknown, {
  valid: [
    { name: "ENGINE set to a known engine", files: { "kvgate.yaml": FLEET_H, "scripts/a.env": "ENGINE=vllm\nHOST=h\nGPU=0\n" } },
    {
      name: "no ENGINE, the image names vLLM",
      files: { "kvgate.yaml": FLEET_H, "scripts/a.env": "IMAGE=vllm/vllm-openai:v0.11.0\nHOST=h\nGPU=0\n" },
    },
    {
      name: "no ENGINE, a registry-qualified image with a digest",
      files: { "kvgate.yaml": FLEET_H, "scripts/a.env": "DOCKER_IMAGE=docker.io/vllm/vllm-openai:latest@sha256:0123abcd\nGPU=0\n" },
    },
    {
      name: "no ENGINE, the command runs the OpenAI server module",
      files: {
        "kvgate.yaml": FLEET_H,
        "scripts/a.env": 'CMD="/usr/bin/python3 -m vllm.entrypoints.openai.api_server --model Qwen/Qwen3-8B"\nGPU=0\n',
      },
    },
    {
      name: "no ENGINE, a flag only radiance has",
      files: { "kvgate.yaml": FLEET_H, "scripts/a.env": 'HOST=h\nGPU=0\nARGS="--gpu-headroom-mib 96"\n' },
    },
    {
      name: "an engine listed under engines.generic",
      files: { "kvgate.yaml": `${FLEET_H}engines: { generic: [llamacpp] }\n`, "scripts/a.env": "ENGINE=llamacpp\nHOST=h\nGPU=0\n" },
    },
    {
      name: "an unknown engine that holds no GPU and sizes nothing",
      files: { "kvgate.yaml": FLEET_H, "scripts/a.env": "ENGINE=redis\nPORT=6379\n" },
    },
    {
      name: "a GPU user without an engine that kvgate.yaml declares under fleet.tenants (its memory is the tenant's vram)",
      files: {
        "kvgate.yaml": `${FLEET_H}  tenants:\n    - { name: asr, host: h, gpu: 1, vram: 3GiB }\n`,
        "scripts/asr.env": "ASR_IMAGE=nvcr.io/nvidia/riva/riva-speech:2.19.0\nCUDA_VISIBLE_DEVICES=1\n",
      },
    },
    {
      name: "no engine at all, NVIDIA_VISIBLE_DEVICES=none",
      files: { "kvgate.yaml": FLEET_H, "scripts/a.env": "NVIDIA_VISIBLE_DEVICES=none\nPORT=80\n" },
    },
  ],
  invalid: [
    {
      name: "ENGINE=vlm (a typo) with a 1 GiB pin for 40,960 tokens: suggests vllm",
      files: { "kvgate.yaml": FLEET_H, "scripts/typo.env": typo },
      findings: [
        {
          messageId: "typo",
          line: 1,
          service: "typo",
          message:
            "typo: ENGINE=vlm is not an engine kvgate knows (vllm, radiance), and it holds a GPU (GPU=1), so no sizing rule would check it; did you mean vllm? set ENGINE=vllm, or list vlm under engines.generic in kvgate.yaml to run it with the generic checks only",
          data: exact({
            service: "typo",
            engine: "vlm",
            nearest: "vllm",
            known: "vllm, radiance",
            why: "it holds a GPU (GPU=1)",
            recognised_by: "ENGINE",
          }),
        },
      ],
    },
    {
      name: "ENGINE=radiant suggests radiance",
      files: { "kvgate.yaml": FLEET_H, "scripts/r.env": "HOST=h\nENGINE=radiant\nHOST_POOL_MIB=44928\n" },
      findings: [{ messageId: "typo", line: 2, data: { nearest: "radiance", why: "it sets HOST_POOL_MIB, a sizing setting" } }],
    },
    {
      name: "no ENGINE and an image kvgate does not know, on a card",
      files: { "kvgate.yaml": FLEET_H, "scripts/t.env": "IMAGE=ghcr.io/acme/tgi:2\nHOST=h\nCUDA_VISIBLE_DEVICES=0\n" },
      findings: [{ messageId: "unrecognised", line: 3, data: { why: "it holds a GPU (CUDA_VISIBLE_DEVICES=0)", recognised_by: "none" } }],
    },
    {
      name: "no ENGINE, no GPU, but a sizing flag (--max-model-len is every engine's, so it names none)",
      files: { "kvgate.yaml": FLEET_H, "scripts/t.env": 'SERVE_ARGS="--max-model-len 32768"\n' },
      findings: [{ messageId: "unrecognised", line: 1, data: { why: "it sets --max-model-len, a sizing setting" } }],
    },
    {
      name: "flags of two engines at once: ambiguous",
      files: { "kvgate.yaml": FLEET_H, "scripts/t.env": 'GPU=0\nARGS="--gpu-memory-utilization 0.5 --gpu-headroom-mib 96"\n' },
      findings: [{ messageId: "ambiguous", line: 2, data: { candidates: "vllm, radiance" } }],
    },
  ],
});
