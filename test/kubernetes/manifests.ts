// Manifests as numbered lines for the k8s rule tables and tests: a vLLM Deployment whose every line
// is known (the GPU request is line 21, the first args line 13), so expected lines are readable.
import { lines } from "./helpers.js";

export interface DeploymentOpts {
  name?: string;
  replicas?: number;
  product?: string | null;
  gpus?: string | null;
  args?: string[];
  image?: string;
}

/**
 * Lines: 1 apiVersion … 4 `name:`, 6 `replicas:`, 10 nodeSelector entry (11 when product is null:
 * none), 13.. args, then resources with `nvidia.com/gpu` on the line after `limits:`.
 */
export function deployment(o: DeploymentOpts = {}): string {
  const args = o.args ?? ["Qwen/Qwen3-8B", "--max-model-len", '"40960"', "--kv-cache-memory-bytes", '"8053063680"'];
  return lines(
    "apiVersion: apps/v1",
    "kind: Deployment",
    "metadata:",
    `  name: ${o.name ?? "chat"}`,
    "spec:",
    `  replicas: ${o.replicas ?? 1}`,
    "  template:",
    "    spec:",
    "      nodeSelector:",
    o.product === null ? "        kubernetes.io/os: linux" : `        nvidia.com/gpu.product: ${o.product ?? "NVIDIA-H100-80GB-HBM3"}`,
    "      containers:",
    "        - name: vllm",
    `          image: ${o.image ?? "vllm/vllm-openai:v0.11.0"}`,
    "          args:",
    ...args.map((a) => `            - ${a}`),
    "          resources:",
    "            limits:",
    o.gpus === null ? "              cpu: 4" : `              nvidia.com/gpu: ${o.gpus ?? 1}`,
  );
}

/** The line of `nvidia.com/gpu` in deployment(): after the args. */
export const gpuLine = (args = 5): number => 15 + args + 2;

export const TIME_SLICED = lines(
  "apiVersion: v1",
  "kind: ConfigMap",
  "metadata:",
  "  name: time-slicing-config",
  "data:",
  "  any: |-",
  "    version: v1",
  "    sharing:",
  "      timeSlicing:",
  "        resources:",
  "          - name: nvidia.com/gpu",
  "            replicas: 4",
);
