import { k8sDrift } from "../../../src/checks/k8s-drift.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { lines } from "../../kubernetes/helpers.js";

const V = "charts/stack/values.yaml";
const M = "k8s/rendered.yaml";
const values = (len: number) =>
  lines(
    "servingEngineSpec:",
    "  modelSpec:",
    "  - name: chat",
    "    repository: vllm/vllm-openai",
    "    tag: v0.11.0",
    "    modelURL: Qwen/Qwen3-8B",
    "    replicaCount: 1",
    "    requestGPU: 1",
    "    vllmConfig:",
    `      maxModelLen: ${len}`,
  );
/** What `helm template` renders for it (deployment-vllm-multi.yaml), committed beside it: the seat is the `model` label's. */
const rendered = (len: number) =>
  lines(
    "apiVersion: apps/v1",
    "kind: Deployment",
    "metadata:",
    "  name: prod-chat-deployment-vllm",
    "  labels: { model: chat, helm-release-name: prod }",
    "spec:",
    "  replicas: 1",
    "  template:",
    "    spec:",
    "      containers:",
    "        - name: vllm",
    "          image: vllm/vllm-openai:v0.11.0",
    '          command: ["vllm", "serve", "Qwen/Qwen3-8B", "--host", "0.0.0.0", "--port", "8000", "--no-enable-prefix-caching", "--max-model-len", "' +
      len +
      '"]',
    "          resources:",
    '            limits: { nvidia.com/gpu: "1" }',
  );

export default ruleTester(k8sDrift, {
  valid: [
    { name: "the values and the Deployment rendered from them agree", files: { [V]: values(8192), [M]: rendered(8192) } },
    { name: "one file deploys the workload", files: { [V]: values(8192) } },
  ],
  invalid: [
    {
      name: "the values were changed and not rendered again: at the values line, naming both spellings",
      files: { [V]: values(16384), [M]: rendered(8192) },
      findings: [
        {
          file: V,
          line: 10,
          severity: "warning",
          service: "chat",
          message:
            "chat: charts/stack/values.yaml sets maxModelLen 16384, but k8s/rendered.yaml:13 sets --max-model-len 8192 for the same workload (kvgate checks k8s/rendered.yaml, the later path); make the two files agree, or delete the one that does not deploy",
        },
      ],
    },
  ],
});
