// The Kubernetes reader, as tables: a manifest in, what Kubernetes would run out (the settings and
// lines each container deploys), by the API's semantics (cited per case), without kvgate's placement.
import { describe, expect, test } from "vitest";
import { readKubernetesFiles, type K8sDeploy, type KubernetesReads } from "../../src/kubernetes/index.js";
import { runsEngineCommand } from "../../src/model/recognise.js";
import { loadPack } from "../../src/rules/load.js";
import { fleetOf, k8sSeats, lines } from "./helpers.js";
import { deployment } from "./manifests.js";
import { cardBatchClass } from "../../src/kv/batch.js";

const engines = loadPack().engines.engines;
function read(files: Record<string, string>): KubernetesReads {
  return readKubernetesFiles(Object.keys(files), (p) => (files[p] === undefined ? null : { text: files[p], problem: null }), {
    runsEngine: (w) => runsEngineCommand(engines, w),
  });
}
const deploys = (r: KubernetesReads): K8sDeploy[] => r.reads.flatMap((x) => x.deploys);
const command = (d: K8sDeploy | undefined) => d?.edits.find((e) => e.kind === "flags");
const container = (spec: string[]) =>
  lines(
    "apiVersion: apps/v1",
    "kind: Deployment",
    "metadata: { name: m }",
    "spec:",
    "  template:",
    "    spec:",
    "      containers:",
    "        - name: vllm",
    ...spec,
  );

describe("what a container runs (core/v1 Container)", () => {
  test.each([
    [
      "args alone after vLLM's image ENTRYPOINT (`vllm serve`)",
      ["          image: vllm/vllm-openai:v0.10.2", "          args: [Qwen/Qwen3-8B, --max-model-len, '8192']"],
      "vllm serve Qwen/Qwen3-8B --max-model-len 8192",
    ],
    [
      "command replaces the ENTRYPOINT; args follow it",
      [
        "          image: vllm/vllm-openai",
        "          command: [python3, -m, vllm.entrypoints.openai.api_server]",
        "          args: [--model, Qwen/Qwen3-8B]",
      ],
      "python3 -m vllm.entrypoints.openai.api_server --model Qwen/Qwen3-8B",
    ],
    [
      "$(VAR) from env; $$(VAR) is a literal",
      [
        "          image: vllm/vllm-openai",
        "          env: [{ name: CTX, value: '4096' }]",
        "          args: [M, --max-model-len, $(CTX), --served-model-name, $$(CTX)]",
      ],
      "vllm serve M --max-model-len 4096 --served-model-name '$(CTX)'",
    ],
    [
      "a $(VAR) the container does not define stays as written",
      ["          image: other/server", "          args: [--port, $(PORT)]"],
      "--port '$(PORT)'",
    ],
    [
      "sh -c with one command: its words",
      ["          image: vllm/vllm-openai", "          command: [sh, -c, 'exec vllm serve M --max-model-len 2048']"],
      "vllm serve M --max-model-len 2048",
    ],
    [
      "sh -c with a setup step and the server: the server's words",
      ["          image: vllm/vllm-openai", "          command: [sh, -c, 'pip install x && vllm serve M --max-model-len 1024']"],
      "vllm serve M --max-model-len 1024",
    ],
    [
      "sh -c with two servers: not guessed",
      ["          image: vllm/vllm-openai", "          command: [sh, -c, 'vllm serve A; vllm serve B']"],
      "sh -c 'vllm serve A; vllm serve B'",
    ],
  ])("%s", (_name, spec, want) => {
    expect(command(deploys(read({ "k8s/m.yaml": container(spec) }))[0])?.value).toBe(want);
  });

  test("only the variables vLLM reads are settings (VLLM_*, kvgate's overrides); envFrom loses to env", () => {
    const cm = lines(
      "kind: ConfigMap",
      "metadata: { name: cfg }",
      "data:",
      "  VLLM_ALLOW_LONG_MAX_MODEL_LEN: '0'",
      "  MAX_MODEL_LEN: '9999'",
    );
    const d = deploys(
      read({
        "k8s/cm.yaml": cm,
        "k8s/m.yaml": container([
          "          image: vllm/vllm-openai",
          "          envFrom: [{ configMapRef: { name: cfg } }]",
          "          env: [{ name: VLLM_ALLOW_LONG_MAX_MODEL_LEN, value: '1' }]",
          "          args: [M]",
        ]),
      }),
    )[0];
    expect(d?.edits.filter((e) => e.kind === "set").map((e) => (e.kind === "set" ? [e.key, e.value, e.file, e.line] : []))).toEqual([
      ["IMAGE", "vllm/vllm-openai", "k8s/m.yaml", 9],
      ["VLLM_ALLOW_LONG_MAX_MODEL_LEN", "1", "k8s/m.yaml", 11],
    ]);
  });

  test("a `|` block script: its words on the line after the key", () => {
    const d = deploys(
      read({
        "k8s/m.yaml": container([
          "          image: vllm/vllm-openai",
          "          command:",
          "            - sh",
          "            - -c",
          "            - |",
          "              vllm serve M --max-model-len 512",
        ]),
      }),
    )[0];
    expect(command(d)?.wordLines).toEqual([14, 14, 14, 14, 14]);
  });
});

describe("workload kinds", () => {
  test("StatefulSet replicas and a bare Pod", () => {
    const r = read({
      "k8s/s.yaml": lines(
        "kind: StatefulSet",
        "metadata: { name: s }",
        "spec:",
        "  replicas: 3",
        "  template:",
        "    spec:",
        "      containers: [{ name: v, image: vllm/vllm-openai, args: [M] }]",
      ),
      "k8s/p.yaml": lines("kind: Pod", "metadata: { name: p }", "spec:", "  containers: [{ name: v, image: vllm/vllm-openai, args: [M] }]"),
    });
    expect(deploys(r).map((d) => [d.kind, d.workload, d.replicas.count, d.replicas.via])).toEqual([
      ["Pod", "p", 1, "default"],
      ["StatefulSet", "s", 3, "replicas"],
    ]);
  });

  test("a KServe predictor whose runtime is a ServingRuntime of the repository: runtime args, then the model's", () => {
    const runtime = lines(
      "apiVersion: serving.kserve.io/v1alpha1",
      "kind: ClusterServingRuntime",
      "metadata: { name: vllm-runtime }",
      "spec:",
      "  containers:",
      "    - name: kserve-container",
      "      image: vllm/vllm-openai:v0.10.2",
      "      args: [--port, '8080', --model, /mnt/models]",
    );
    const isvc = lines(
      "apiVersion: serving.kserve.io/v1beta1",
      "kind: InferenceService",
      "metadata: { name: q }",
      "spec:",
      "  predictor:",
      "    minReplicas: 1",
      "    maxReplicas: 3",
      "    nodeSelector: { nvidia.com/gpu.product: NVIDIA-L4 }",
      "    model:",
      "      runtime: vllm-runtime",
      "      modelFormat: { name: vLLM }",
      "      args: [--max-model-len, '4096']",
      "      resources: { limits: { nvidia.com/gpu: '1' } }",
    );
    const d = deploys(read({ "k8s/rt.yaml": runtime, "k8s/q.yaml": isvc }))[0];
    // No command: the image's ENTRYPOINT (vllm serve) with the merged args (runtime's first).
    expect(command(d)?.value).toBe("vllm serve --port 8080 --model /mnt/models --max-model-len 4096");
    expect([d?.replicas.count, d?.replicas.via, d?.gpu?.count, d?.nodes.map((n) => n.values[0])]).toEqual([
      3,
      "maxReplicas",
      1,
      ["NVIDIA-L4"],
    ]);
  });

  test("a KServe runtime that is not in the repository: unresolved, nothing read", () => {
    const r = read({
      "k8s/q.yaml": lines(
        "kind: InferenceService",
        "metadata: { name: q }",
        "spec:",
        "  predictor:",
        "    model:",
        "      runtime: elsewhere",
        "      modelFormat: { name: vLLM }",
      ),
    });
    expect(r.reads[0]?.problems.map((p) => [p.kind, p.line])).toEqual([["unresolved", 6]]);
    expect(deploys(r)).toEqual([]);
  });
});

describe("the production-stack values switches (deployment-vllm-multi.yaml)", () => {
  const values = (...spec: string[]) =>
    lines(
      "servingEngineSpec:",
      "  modelSpec:",
      "  - name: a",
      "    repository: vllm/vllm-openai",
      "    tag: v0.10.2",
      "    modelURL: M",
      ...spec,
    );
  test.each([
    ["enabled: false renders nothing", ["    enabled: false"], 0],
    ["raySpec.enabled renders the Ray cluster instead", ["    raySpec: { enabled: true }"], 0],
    ["a plain entry renders one Deployment", [], 1],
  ])("%s", (_name, spec, n) => {
    expect(deploys(read({ "charts/x/values.yaml": values(...spec) }))).toHaveLength(n);
  });

  test("enableEngine: false renders no engine", () => {
    expect(
      deploys(read({ "charts/x/values.yaml": values().replace("servingEngineSpec:", "servingEngineSpec:\n  enableEngine: false") })),
    ).toEqual([]);
  });

  test("keda.enabled: the ScaledObject's maxReplicaCount, not replicaCount; resources taken verbatim over requestGPU", () => {
    const d = deploys(
      read({
        "charts/x/values.yaml": values(
          "    replicaCount: 1",
          "    requestGPU: 1",
          "    resources: { limits: { nvidia.com/gpu: '2' } }",
          "    keda: { enabled: true, maxReplicaCount: 4 }",
        ),
      }),
    )[0];
    expect([d?.replicas.count, d?.replicas.via, d?.gpu?.count, d?.gpu?.key]).toEqual([4, "keda.maxReplicaCount", 2, "nvidia.com/gpu"]);
  });

  test("requestGPUType names a MIG slice: the card is the slice", async () => {
    const f = await fleetOf({
      "charts/x/values.yaml": values(
        "    requestGPU: 1",
        "    requestGPUType: nvidia.com/mig-3g.40gb",
        "    nodeSelectorTerms: [{ matchExpressions: [{ key: nvidia.com/gpu.product, operator: In, values: [NVIDIA-A100-SXM4-80GB] }] }]",
      ),
    });
    expect(k8sSeats(f).a?.host).toBe("k8s:NVIDIA-A100-SXM4-80GB/mig-3g.40gb");
    // 40 GB as 1000³ bytes, in MiB (the profile's conservative figure).
    expect(f.running.cards.map((c) => [c.host, c.totalBytes / 2 ** 20])).toEqual([["k8s:NVIDIA-A100-SXM4-80GB/mig-3g.40gb", 38146]]);
  });

  test("a product label's card carries its name and CUDA total from rules/cards.yaml: an H100 pool gets vLLM's H100 batch budget", async () => {
    const h100 = await fleetOf({ "k8s/chat.yaml": deployment() });
    const card = h100.running.cards[0];
    // 79.19 GiB, the total vLLM logged on an H100 (vllm-project/vllm#23278), not nvidia-smi's 81,559 MiB.
    expect([card?.name, (card?.cudaTotalBytes ?? 0) / 2 ** 20]).toEqual(["NVIDIA H100 80GB HBM3", 81091]);
    expect(cardBatchClass(loadPack().cards(), card?.name, card?.cudaTotalBytes ?? 0)).toBe("h100");
    // A card the table has no logged CUDA total for is taken at nvidia-smi's figure.
    const l4 = (await fleetOf({ "k8s/chat.yaml": deployment({ product: "NVIDIA-L4" }) })).running.cards[0];
    expect([l4?.name, (l4?.cudaTotalBytes ?? 0) / 2 ** 20, cardBatchClass(loadPack().cards(), l4?.name, l4?.cudaTotalBytes ?? 0)]).toEqual([
      "NVIDIA L4",
      23034,
      "small",
    ]);
  });
});

describe("the device plugin's sharing", () => {
  const ts = (body: string[]) => lines("kind: ConfigMap", "metadata: { name: dp }", "data:", ...body);
  const l4 = (resource = "nvidia.com/gpu", extra: string[] = []) =>
    lines(
      "kind: Deployment",
      "metadata: { name: m }",
      "spec:",
      "  template:",
      "    spec:",
      "      nodeSelector: { nvidia.com/gpu.product: NVIDIA-L4",
      ...extra,
      "      }",
      "      containers:",
      `        - { name: v, image: vllm/vllm-openai, args: [M], resources: { limits: { ${resource}: 1 } } }`,
    );
  const sharing = async (files: Record<string, string>) =>
    (await fleetOf(files)).running.kubernetes?.pools.map((p) => [p.sharing?.kind ?? null, p.sharing?.replicas ?? null]);

  test("renameByDefault: pods asking nvidia.com/gpu.shared get the shared replicas", async () => {
    const cfg = ts([
      "  a: |",
      "    version: v1",
      "    sharing:",
      "      timeSlicing:",
      "        renameByDefault: true",
      "        resources: [{ name: nvidia.com/gpu, replicas: 2 }]",
    ]);
    expect(await sharing({ "k8s/dp.yaml": cfg, "k8s/m.yaml": l4("nvidia.com/gpu.shared") })).toEqual([["time-slicing", 2]]);
    expect(await sharing({ "k8s/dp.yaml": cfg, "k8s/m.yaml": l4() })).toEqual([[null, null]]);
  });

  test("MPS shares a card as time-slicing does", async () => {
    const cfg = ts([
      "  a: |",
      "    version: v1",
      "    sharing:",
      "      mps:",
      "        resources: [{ name: nvidia.com/gpu, replicas: 3 }]",
    ]);
    expect(await sharing({ "k8s/dp.yaml": cfg, "k8s/m.yaml": l4() })).toEqual([["mps", 3]]);
  });

  test("several configs: the one the nodes' nvidia.com/device-plugin.config label (or a ClusterPolicy default) names", async () => {
    const cfg = ts([
      "  shared: |",
      "    version: v1",
      "    sharing: { timeSlicing: { resources: [{ name: nvidia.com/gpu, replicas: 4 }] } }",
      "  whole: |",
      "    version: v1",
    ]);
    expect(await sharing({ "k8s/dp.yaml": cfg, "k8s/m.yaml": l4() })).toEqual([[null, null]]);
    expect(
      await sharing({ "k8s/dp.yaml": cfg, "k8s/m.yaml": l4(undefined, ["        , nvidia.com/device-plugin.config: shared"]) }),
    ).toEqual([["time-slicing", 4]]);
    const policy = lines(
      "kind: ClusterPolicy",
      "metadata: { name: cluster-policy }",
      "spec:",
      "  devicePlugin: { config: { name: dp, default: shared } }",
    );
    expect(await sharing({ "k8s/dp.yaml": cfg, "k8s/cp.yaml": policy, "k8s/m.yaml": l4() })).toEqual([["time-slicing", 4]]);
  });

  test("the device plugin chart's values: config.map and config.default", async () => {
    const chart = lines(
      "config:",
      "  default: ts",
      "  map:",
      "    ts: |-",
      "      version: v1",
      "      sharing: { timeSlicing: { resources: [{ name: nvidia.com/gpu, replicas: 8 }] } }",
      "    other: |-",
      "      version: v1",
    );
    expect(await sharing({ "charts/nvidia-device-plugin/values.yaml": chart, "k8s/m.yaml": l4() })).toEqual([["time-slicing", 8]]);
  });

  test("a config map entry that is not YAML: a parse problem at its line inside the map, the plugin refuses it", () => {
    const r = read({ "k8s/dp.yaml": ts(["  a: |", "    version: v1", "    sharing: [", "      timeSlicing"]) });
    expect(r.reads[0]?.problems.map((p) => [p.kind, p.line, p.message.startsWith("device plugin config a: ")])).toEqual([
      ["parse", 8, true],
    ]);
  });
});
