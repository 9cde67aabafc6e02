import { k8sGpuRequest } from "../../../src/checks/k8s-gpu-request.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { deployment, gpuLine, TIME_SLICED } from "../../kubernetes/manifests.js";
import { lines } from "../../kubernetes/helpers.js";

const tp = (n: number) => ["Qwen/Qwen3-8B", "--tensor-parallel-size", `"${n}"`, "--max-model-len", '"8192"'];
const F = "k8s/chat.yaml";

export default ruleTester(k8sGpuRequest, {
  valid: [
    { name: "TP 2 on two GPUs", files: { [F]: deployment({ args: tp(2), gpus: "2" }) } },
    { name: "TP 1 (the default) on one GPU", files: { [F]: deployment() } },
    {
      name: "one time-sliced replica per pod is what time-slicing is for",
      files: { [F]: deployment({ product: "NVIDIA-L4" }), "k8s/ts.yaml": TIME_SLICED },
    },
  ],
  invalid: [
    {
      name: "TP 4 over 2 GPUs: vLLM cannot start its ranks; the fix is the request, as the manifest spells it",
      files: { [F]: deployment({ args: tp(4), gpus: "2" }) },
      findings: [
        {
          messageId: "mismatch",
          file: F,
          line: gpuLine(),
          severity: "error",
          message:
            "chat: --tensor-parallel-size 4 needs 4 GPUs per pod, but nvidia.com/gpu asks 2: vLLM cannot start its ranks; set nvidia.com/gpu: 4",
          data: { need: 4, count: 2, fix: { file: F, line: gpuLine(), key: "nvidia.com/gpu", value: "4" } },
        },
      ],
    },
    {
      name: "TP 1 holding 2 GPUs: one sits idle",
      files: { [F]: deployment({ gpus: "2" }) },
      findings: [{ messageId: "mismatch", line: gpuLine(), data: { need: 1, count: 2 } }],
    },
    {
      name: "no GPU asked: the pod gets none",
      files: { [F]: deployment({ gpus: null }) },
      findings: [
        {
          messageId: "none",
          file: F,
          line: 4,
          message:
            "chat: its pods ask for no GPU (no nvidia.com/gpu under resources.limits), so Kubernetes gives them none and vLLM fails at boot; add limits nvidia.com/gpu: 1",
        },
      ],
    },
    {
      name: "the chart's requestGPU: 0.5 renders no GPU; the fix names requestGPU",
      files: {
        "charts/stack/values.yaml": lines(
          "servingEngineSpec:",
          "  modelSpec:",
          "  - name: chat",
          "    repository: vllm/vllm-openai",
          "    tag: v0.11.0",
          "    modelURL: Qwen/Qwen3-8B",
          "    replicaCount: 1",
          "    requestGPU: 0.5",
        ),
      },
      findings: [
        {
          messageId: "none",
          file: "charts/stack/values.yaml",
          line: 8,
          message:
            "chat: requestGPU: 0.5 renders no GPU (the chart asks for int(requestGPU) = 0), so its pods get none and vLLM fails at boot; set requestGPU: 1",
          data: { fix: { file: "charts/stack/values.yaml", line: 8, key: "requestGPU", value: "1" } },
        },
      ],
    },
    {
      name: "two slices of a time-sliced card for TP 2",
      files: { [F]: deployment({ product: "NVIDIA-L4", args: tp(2), gpus: "2" }), "k8s/ts.yaml": TIME_SLICED },
      findings: [
        {
          messageId: "sharedMulti",
          line: gpuLine(),
          message:
            "chat: asks for 2 nvidia.com/gpu on k8s:NVIDIA-L4, whose cards are shared (time-slicing ×4): the device plugin may give it 2 slices of one card, and --tensor-parallel-size 2 needs 2 distinct GPUs; run it on a pool without sharing",
        },
      ],
    },
  ],
});
