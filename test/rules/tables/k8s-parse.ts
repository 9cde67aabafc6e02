import { expect } from "vitest";
import { k8sParse } from "../../../src/checks/k8s-parse.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { deployment } from "../../kubernetes/manifests.js";
import { lines } from "../../kubernetes/helpers.js";

const F = "k8s/chat.yaml";
const V = "charts/stack/values.yaml";

export default ruleTester(k8sParse, {
  valid: [
    { name: "a Deployment the API server accepts", files: { [F]: deployment() } },
    { name: "YAML with no object kvgate reads (a Service) is not read", files: { "k8s/svc.yaml": lines("kind: Service", "spec: [") } },
    {
      name: "an unchanged broken manifest is not this change's finding",
      files: { [F]: lines("kind: Deployment", "spec: [", "x"), "k8s/b.yaml": deployment({ name: "b" }) },
      beforeFiles: { [F]: lines("kind: Deployment", "spec: [", "x") },
    },
  ],
  invalid: [
    {
      name: "a YAML error: at its line, naming what refuses it",
      files: { [F]: lines("kind: Deployment", "metadata:", "  name: chat", "  name: other") },
      findings: [
        {
          file: F,
          line: 4,
          severity: "error",
          message: expect.stringMatching(
            /^Map keys must be unique.*; kubectl and helm refuse the file; kvgate cannot size what it deploys until it parses$/,
          ),
        },
      ],
    },
    {
      name: "a fractional GPU: the API server refuses a fraction of an extended resource",
      files: { [F]: deployment({ gpus: '"0.5"' }) },
      findings: [
        {
          line: 22,
          message:
            'nvidia.com/gpu: "0.5" for chat is not a whole number of devices; the API server refuses a fraction of an extended resource (ask for 1, or share cards with the device plugin\'s time-slicing); kvgate cannot size what it deploys until it parses',
        },
      ],
    },
    {
      name: 'the chart renders requestGPU 1.5 as "1.5", which the API server refuses',
      files: {
        [V]: lines(
          "servingEngineSpec:",
          "  modelSpec:",
          "  - name: chat",
          "    repository: vllm/vllm-openai",
          "    tag: v0.11.0",
          "    modelURL: Qwen/Qwen3-8B",
          "    requestGPU: 1.5",
        ),
      },
      findings: [
        { file: V, line: 7, message: expect.stringContaining('the chart renders nvidia.com/gpu: "1.5", which the API server refuses') },
      ],
    },
    {
      name: "a modelSpec without a tag: helm refuses to render it",
      files: {
        [V]: lines(
          "servingEngineSpec:",
          "  modelSpec:",
          "  - name: chat",
          "    repository: vllm/vllm-openai",
          "    modelURL: Qwen/Qwen3-8B",
        ),
      },
      findings: [{ file: V, line: 3, message: expect.stringContaining("modelSpec chat has no tag; helm refuses to render it") }],
    },
    {
      name: "a manifest that is not text: line 1",
      files: { [F]: "kind: Deployment\0\n" },
      findings: [{ file: F, line: 1, message: expect.stringContaining("NUL byte") }],
    },
    {
      name: "a hostile file (flow nesting past the limit) is refused, not parsed",
      files: { [F]: `kind: Deployment\nspec: ${"[".repeat(5000)}${"]".repeat(5000)}\n` },
      findings: [{ file: F, line: 2, message: expect.stringContaining("nested more than 100 levels deep") }],
    },
  ],
});
