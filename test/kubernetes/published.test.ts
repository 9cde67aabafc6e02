// Published vLLM examples for Kubernetes (fixtures/published/SOURCES.md) resolve to the seats, GPUs
// and settings Kubernetes would run. Every expected value is worked out from the templates and the
// API, cited beside it, never from kvgate's output:
// - production-stack helm/templates/deployment-vllm-multi.yaml (github:vllm-project/production-stack
//   at a6c01db0): image "{{ repository }}:{{ tag }}"; command `vllm serve {{ modelURL }} --host
//   0.0.0.0 --port {{ containerPort | default 8000 }}`, then with vllmConfig `--no-enable-chunked-
//   prefill` when enableChunkedPrefill is false, `--enable-prefix-caching` or else
//   `--no-enable-prefix-caching`, `--max-model-len`, `--dtype`, `--tensor-parallel-size`,
//   `--max-num-seqs`, `--gpu_memory_utilization`, `--max_loras`, then extraArgs; `replicas:
//   {{ replicaCount }}`; resources from _helpers.tpl chart.resources: `nvidia.com/gpu: requestGPU`
//   only when `int requestGPU` > 0; affinity from nodeSelectorTerms.
// - Kubernetes core/v1 Container: `command` replaces the image ENTRYPOINT and `args` its CMD, not run
//   in a shell (so `["/bin/sh", "-c"]` + one script runs the script); apps/v1 DeploymentSpec.replicas
//   defaults to 1; GPUs are `resources.limits` of an extended resource (kubernetes.io/docs/tasks/
//   manage-gpus/scheduling-gpus).
// - LeaderWorkerSet v1 (sigs.k8s.io/lws): `replicas` groups of `leaderWorkerTemplate.size` pods; the
//   docs' listing shows pods vllm-0, vllm-0-1, vllm-1, vllm-1-1, each with 8 GPUs.
// - KServe: the Hugging Face runtime serves with vLLM unless `--backend` says otherwise and loads the
//   model `storageUri` names (huggingfaceserver/__main__.py); `minReplicas` defaults to 1; with no
//   `nvidia.com/gpu` KServe runs the CPU image (the docs' note under qwen-cpu.yaml).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { fleetOf, k8sSeats } from "./helpers.js";

const fixture = (name: string): string => readFileSync(join(import.meta.dirname, "fixtures", "published", name), "utf8");

/** One pool, so a workload that names none lands in it (kvgate.yaml fleet.pools). */
const ONE_POOL = "fleet:\n  pools:\n    gpu: { card: NVIDIA-L4 }\n";
const H100_POOL = "fleet:\n  pools:\n    h100: { card: NVIDIA-H100-80GB-HBM3 }\n";
/** The nodes the V100 examples pin by kubernetes.io/hostname, as kvgate.yaml hosts (3 and 4 V100 SXM2 16GB). */
const V100_HOSTS = [
  "fleet:",
  "  hosts:",
  "    gpu-node-01: { gpus: [{ index: 0, total: 16GiB }, { index: 1, total: 16GiB }, { index: 2, total: 16GiB }] }",
  "    gpu-node-02: { gpus: [{ index: 0, total: 16GiB }, { index: 1, total: 16GiB }, { index: 2, total: 16GiB }, { index: 3, total: 16GiB }] }",
  "",
].join("\n");

function flagsOf(f: Awaited<ReturnType<typeof fleetOf>>, seat: string): Record<string, string | null> {
  const s = f.running.services.find((x) => x.name === seat);
  return Object.fromEntries((s?.env.flags ?? []).map((x) => [x.name, x.value]));
}

describe("production-stack tutorials' values files", () => {
  test("values-01-minimal-example: one pod, one GPU, the model and nothing else", async () => {
    const f = await fleetOf({
      "charts/stack/values.yaml": fixture("production-stack-values-01-minimal-example.yaml"),
      "kvgate.yaml": ONE_POOL,
    });
    // replicaCount 1 → one seat; requestGPU 1 → nvidia.com/gpu "1"; no vllmConfig → no sizing flags.
    expect(k8sSeats(f)).toEqual({
      opt125m: { host: "k8s:gpu", gpus: [0], model: "facebook/opt-125m", tp: 1, image: "vllm/vllm-openai:latest", settings: {} },
    });
    expect(flagsOf(f, "opt125m")).toEqual({ "--host": "0.0.0.0", "--port": "8000" });
  });

  test("values-01-2pods-minimal-example: replicaCount 2 is two seats; requestGPU 0.5 renders no GPU", async () => {
    const f = await fleetOf({
      "charts/stack/values.yaml": fixture("production-stack-values-01-2pods-minimal-example.yaml"),
      "kvgate.yaml": ONE_POOL,
    });
    // int 0.5 = 0, so chart.resources renders no nvidia.com/gpu: the pods hold no card.
    const seat = { host: "k8s:gpu", gpus: [], model: "facebook/opt-125m", tp: 1, image: "vllm/vllm-openai:latest" };
    const settings = { max_model_len: 1024, gpu_memory_utilization: 0.4 };
    expect(k8sSeats(f)).toEqual({ "opt125m-0": { ...seat, settings }, "opt125m-1": { ...seat, settings } });
    // vllmConfig present, enablePrefixCaching unset → `--no-enable-prefix-caching`; the flag spelled --gpu_memory_utilization.
    expect(flagsOf(f, "opt125m-0")).toEqual({
      "--host": "0.0.0.0",
      "--port": "8000",
      "--no-enable-prefix-caching": null,
      "--max-model-len": "1024",
      "--gpu-memory-utilization": "0.4",
    });
    expect(f.running.kubernetes?.seats.map((s) => [s.service, s.gpusPerReplica, s.gpu?.raw])).toEqual([
      ["opt125m-0", 0, "0.5"],
      ["opt125m-1", 0, "0.5"],
    ]);
  });

  test("values-02-basic-config: extraArgs set the utilization; vllmConfig the context and dtype", async () => {
    const f = await fleetOf({
      "charts/stack/values.yaml": fixture("production-stack-values-02-basic-config.yaml"),
      "kvgate.yaml": ONE_POOL,
    });
    expect(k8sSeats(f)).toEqual({
      llama3: {
        host: "k8s:gpu",
        gpus: [0],
        model: "meta-llama/Llama-3.1-8B-Instruct",
        tp: 1,
        image: "vllm/vllm-openai:latest",
        // vllmConfig.dtype renders `--dtype bfloat16`.
        settings: { max_model_len: 4096, gpu_memory_utilization: 0.8, dtype: "bfloat16" },
      },
    });
    expect(flagsOf(f, "llama3")).toMatchObject({
      "--no-enable-chunked-prefill": null,
      "--no-enable-prefix-caching": null,
      "--dtype": "bfloat16",
    });
  });

  test("values-04-multiple-models: two Deployments, one GPU each, on two cards of a pool without sharing", async () => {
    const f = await fleetOf({
      "charts/stack/values.yaml": fixture("production-stack-values-04-multiple-models.yaml"),
      "kvgate.yaml": ONE_POOL,
    });
    const image = "vllm/vllm-openai:latest";
    expect(k8sSeats(f)).toEqual({
      llama3: {
        host: "k8s:gpu",
        gpus: [0],
        model: "meta-llama/Llama-3.1-8B-Instruct",
        tp: 1,
        image,
        settings: { max_model_len: 4096, max_num_seqs: 32, gpu_memory_utilization: 0.8 },
      },
      mistral: {
        host: "k8s:gpu",
        gpus: [1],
        model: "mistralai/Mistral-7B-Instruct-v0.2",
        tp: 1,
        image,
        settings: { max_model_len: 4096, max_num_seqs: 32, gpu_memory_utilization: 0.95 },
      },
    });
    expect(flagsOf(f, "llama3")["--max-loras"]).toBe("4");
  });

  test.each([
    ["values-25-v100-multi-gpu-tp2", "qwen7b", "gpu-node-01", [0, 1], 2, "Qwen/Qwen2.5-7B-Instruct"],
    ["values-25-v100-multi-gpu-tp4", "qwen14b", "gpu-node-02", [0, 1, 2, 3], 4, "Qwen/Qwen2.5-14B-Instruct"],
  ])("%s: TP over requestGPU cards of the node nodeSelectorTerms pins", async (file, seat, host, gpus, tp, model) => {
    const f = await fleetOf({ "charts/stack/values.yaml": fixture(`production-stack-${file}.yaml`), "kvgate.yaml": V100_HOSTS });
    // requestGPU = tensorParallelSize; nodeSelectorTerms kubernetes.io/hostname In [node] → that node's cards.
    expect(k8sSeats(f)).toEqual({
      [seat]: {
        host,
        gpus,
        model,
        tp,
        image: "vllm/vllm-openai:v0.8.5",
        settings: { max_model_len: 8192, gpu_memory_utilization: 0.9, enforce_eager: true, dtype: "half" },
      },
    });
    expect(flagsOf(f, seat)).toMatchObject({ "--dtype": "half", "--tensor-parallel-size": String(tp) });
  });
});

describe("vLLM's own Kubernetes examples", () => {
  test("the NVIDIA GPU Deployment: `/bin/sh -c` + one script runs that script's vllm serve", async () => {
    const f = await fleetOf({ "k8s/mistral.yaml": fixture("vllm-docs-k8s-gpu-deployment.yaml"), "kvgate.yaml": ONE_POOL });
    expect(k8sSeats(f)).toEqual({
      "mistral-7b": {
        host: "k8s:gpu",
        gpus: [0],
        model: "mistralai/Mistral-7B-Instruct-v0.3",
        tp: 1,
        image: "vllm/vllm-openai:latest",
        settings: { max_num_batched_tokens: 1024 },
      },
    });
    expect(flagsOf(f, "mistral-7b")).toMatchObject({ "--trust-remote-code": null, "--enable-chunked-prefill": null });
  });

  test("the LeaderWorkerSet: 2 groups of 2 pods × 8 GPUs, each group one TP 8 × PP 2 seat over 16 cards", async () => {
    const f = await fleetOf({ "k8s/lws.yaml": fixture("vllm-docs-lws.yaml"), "kvgate.yaml": H100_POOL });
    const seat = {
      host: "k8s:h100",
      model: "meta-llama/Meta-Llama-3.1-405B-Instruct",
      tp: 8,
      image: "docker.io/vllm/vllm-openai:latest",
      settings: { pp: 2 },
    };
    const range = (from: number) => Array.from({ length: 16 }, (_, i) => from + i);
    // The leader's script runs the multi-node helper, then the server: the server's flags are the seat's.
    expect(k8sSeats(f)).toEqual({ "vllm-0": { ...seat, gpus: range(0) }, "vllm-1": { ...seat, gpus: range(16) } });
    expect(f.running.kubernetes?.seats.map((s) => [s.service, s.podsPerReplica, s.gpusPerReplica])).toEqual([
      ["vllm-0", 2, 16],
      ["vllm-1", 2, 16],
    ]);
  });
});

describe("KServe's text generation examples", () => {
  test("llama3-vllm: the Hugging Face runtime serves the storageUri model with vLLM on one GPU", async () => {
    const f = await fleetOf({ "k8s/llama3.yaml": fixture("kserve-llama3-vllm.yaml"), "kvgate.yaml": ONE_POOL });
    expect(k8sSeats(f)).toEqual({
      "llama3-8b": { host: "k8s:gpu", gpus: [0], model: "meta-llama/meta-llama-3-8b-instruct", tp: 1, image: null, settings: {} },
    });
    expect(f.running.services.find((s) => s.name === "llama3-8b")?.engine).toBe("vllm");
  });

  test("llama3-hf: --backend=huggingface is not vLLM: a GPU holder whose engine kvgate does not size", async () => {
    const f = await fleetOf({ "k8s/llama3.yaml": fixture("kserve-llama3-hf-backend.yaml"), "kvgate.yaml": ONE_POOL });
    const s = f.running.services.find((x) => x.name === "llama3-8b");
    expect([s?.engine, s?.gpus, s?.host]).toEqual([null, [0], "k8s:gpu"]);
  });

  test("qwen-cpu: no nvidia.com/gpu, so KServe runs the CPU image: no seat to size", async () => {
    const f = await fleetOf({ "k8s/qwen.yaml": fixture("kserve-qwen-cpu.yaml"), "kvgate.yaml": ONE_POOL });
    expect(k8sSeats(f)).toEqual({});
  });
});

describe("NVIDIA's time-slicing config", () => {
  test("time-slicing-config-all (one config, `any`, replicas 4): four pods of the pool share each card", async () => {
    const deployment = fixture("vllm-docs-k8s-gpu-deployment.yaml").replace("replicas: 1", "replicas: 5");
    const f = await fleetOf({
      "k8s/gpu-operator/time-slicing.yaml": fixture("nvidia-time-slicing-config-all.yaml"),
      "k8s/mistral.yaml": deployment,
      "kvgate.yaml": ONE_POOL,
    });
    expect(f.running.kubernetes?.pools.map((p) => [p.host, p.sharing?.kind, p.sharing?.replicas, p.cardsUsed])).toEqual([
      ["k8s:gpu", "time-slicing", 4, 2],
    ]);
    expect(Object.entries(k8sSeats(f)).map(([n, s]) => [n, s.gpus])).toEqual([
      ["mistral-7b-0", [0]],
      ["mistral-7b-1", [0]],
      ["mistral-7b-2", [0]],
      ["mistral-7b-3", [0]],
      ["mistral-7b-4", [1]],
    ]);
  });
});
