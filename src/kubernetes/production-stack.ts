// The vLLM production-stack chart's values (github:vllm-project/production-stack, helm/): each
// `servingEngineSpec.modelSpec[]` entry is the Deployment helm/templates/deployment-vllm-multi.yaml
// renders, read from the values directly so a finding points at the values line:
// - skipped when `servingEngineSpec.enableEngine` is false, the entry's `enabled` is false, or it
//   runs on Ray (`raySpec.enabled`: ray-cluster.yaml, not read);
// - image `repository:tag` (both required by the template);
// - command `vllm serve <modelURL> --host 0.0.0.0 --port <containerPort>`, then from `vllmConfig`, in
//   the template's order: `--enable-chunked-prefill` / `--no-…` (when the key is there),
//   `--enable-prefix-caching` / `--no-…`, `--max-model-len`, `--dtype`, `--tensor-parallel-size`,
//   `--max-num-seqs`, `--gpu_memory_utilization`, `--max_loras`, `--runner`, `--convert`, then
//   `extraArgs` word for word (a flag given twice: vLLM takes the last); `--revision` from
//   `modelRevision`;
// - replicas `replicaCount` (unset: the Deployment's default 1), or with `keda.enabled` the
//   ScaledObject's `maxReplicaCount` (each pod it may run is a seat);
// - GPUs: `resources` when set (taken verbatim), else `requestGPUType` (default `nvidia.com/gpu`) ×
//   `requestGPU`, rendered only when `int requestGPU` > 0 (_helpers.tpl chart.resources): 0.5 gives
//   the pod no GPU, and 1.5 renders "1.5", which the API server refuses;
// - nodes: `affinity` when not empty, else `nodeSelectorTerms` (unless `nodeName`), and `nodeName`;
// - variables: `servingEngineSpec.configs` (a ConfigMap every engine loads), then
//   `servingEngineSpec.env` and the entry's `env`.
import type { EnvEdit } from "../playbook/records.js";
import type { GpuAsk, K8sDeploy, K8sProblem, NodeChoice } from "./records.js";
import { join as shellJoin } from "shlex";
import { affinityChoices, deployBase, type WorkloadBase } from "./pod.js";
import { gpuAskOf } from "./container.js";
import { entriesOf, get, getIn, itemsOf, keyPosOf, textOf, type KNode } from "./tree.js";

/** The chart's vllmConfig keys and the flags deployment-vllm-multi.yaml renders them as, in its order. */
const VLLM_CONFIG_FLAGS: [string, string][] = [
  ["maxModelLen", "--max-model-len"],
  ["dtype", "--dtype"],
  ["tensorParallelSize", "--tensor-parallel-size"],
  ["maxNumSeqs", "--max-num-seqs"],
  ["gpuMemoryUtilization", "--gpu_memory_utilization"],
  ["maxLoras", "--max_loras"],
  ["runner", "--runner"],
  ["convert", "--convert"],
];

export function isProductionStackValues(doc: KNode): boolean {
  return get(get(doc, "servingEngineSpec"), "modelSpec")?.t === "seq";
}

interface Word {
  word: string;
  line: number;
  /** How the values file spells the setting this word sets (`maxModelLen`): what a fix edits. */
  as: string | null;
}

/** Helm's `int`: a number's integer part; a string that is not one is 0 (sprig toInt). */
function helmInt(raw: string): number {
  const n = Number(raw.trim());
  return Number.isFinite(n) ? Math.trunc(n) : 0;
}

function gpuOf(spec: KNode, name: string, problems: K8sProblem[]): GpuAsk | null {
  const resources = get(spec, "resources");
  if (resources?.t === "map" && resources.entries.size > 0) return gpuAskOf(resources, name, problems);
  const req = get(spec, "requestGPU");
  const raw = textOf(req);
  const at = keyPosOf(spec, "requestGPU");
  if (raw === null || !at) return null;
  const resource = textOf(get(spec, "requestGPUType")) ?? "nvidia.com/gpu";
  const n = helmInt(raw);
  if (n > 0 && !/^\s*\d+\s*$/.test(raw))
    problems.push({
      kind: "parse",
      file: at.file,
      line: at.line,
      message:
        `requestGPU: ${raw} of ${name}: the chart renders ${resource}: ` +
        `"${raw}", which the API server refuses (a GPU is not divisible; ask ` +
        `for ${n}, or share cards with the device plugin's time-slicing)`,
      service: name,
    });
  return { resource, count: Math.max(0, n), raw, key: "requestGPU", file: at.file, line: at.line };
}

function nodesOf(spec: KNode): NodeChoice[] {
  const affinity = get(spec, "affinity");
  const out: NodeChoice[] = [];
  const required = ["nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms"];
  if (affinity?.t === "map" && affinity.entries.size > 0) out.push(...affinityChoices(getIn(affinity, ...required), "affinity"));
  else if (!textOf(get(spec, "nodeName"))) out.push(...affinityChoices(get(spec, "nodeSelectorTerms"), "nodeSelectorTerms"));
  const nodeName = get(spec, "nodeName");
  if (nodeName && textOf(nodeName))
    out.push({ key: "nodeName", values: [textOf(nodeName) as string], via: "nodeName", file: nodeName.pos.file, line: nodeName.pos.line });
  return out;
}

/** The words deployment-vllm-multi.yaml renders for one modelSpec, each with its values line. */
function commandWords(spec: KNode, port: string, at: number): Word[] {
  const w = (word: string, line: number, as: string | null = null): Word => ({ word, line, as });
  const model = get(spec, "modelURL");
  const words: Word[] = [w("vllm", at), w("serve", at), w(textOf(model) ?? "", model?.pos.line ?? at, "modelURL")];
  words.push(w("--host", at), w("0.0.0.0", at), w("--port", at), w(port, at));
  if (textOf(get(spec, "enableLoRA")) === "true") words.push(w("--enable-lora", keyPosOf(spec, "enableLoRA")?.line ?? at));
  if (textOf(get(spec, "enableTool")) === "true") words.push(w("--enable-auto-tool-choice", keyPosOf(spec, "enableTool")?.line ?? at));
  const parser = get(spec, "toolCallParser");
  if (textOf(parser)) words.push(w("--tool-call-parser", parser?.pos.line ?? at), w(textOf(parser) as string, parser?.pos.line ?? at));
  const cfg = get(spec, "vllmConfig");
  if (cfg?.t === "map") {
    const chunked = get(cfg, "enableChunkedPrefill");
    if (chunked) words.push(w(textOf(chunked) === "true" ? "--enable-chunked-prefill" : "--no-enable-chunked-prefill", chunked.pos.line));
    const prefix = get(cfg, "enablePrefixCaching");
    words.push(w(textOf(prefix) === "true" ? "--enable-prefix-caching" : "--no-enable-prefix-caching", prefix?.pos.line ?? cfg.pos.line));
    for (const [key, flag] of VLLM_CONFIG_FLAGS) {
      const v = get(cfg, key);
      const kp = keyPosOf(cfg, key);
      if (!v || !kp) continue;
      words.push(w(flag, kp.line, key), w(textOf(v) ?? "", v.pos.line, key));
    }
    for (const a of itemsOf(get(cfg, "extraArgs"))) words.push(w(textOf(a) ?? "", a.pos.line));
  }
  const revision = get(spec, "modelRevision");
  if (textOf(revision)) words.push(w("--revision", revision?.pos.line ?? at), w(textOf(revision) as string, revision?.pos.line ?? at));
  return words;
}

/** Variables from servingEngineSpec.configs, then servingEngineSpec.env, then the entry's env: only what the engine reads. */
function variableEdits(engine: KNode, spec: KNode): EnvEdit[] {
  const out = new Map<string, EnvEdit>();
  for (const [k, e] of entriesOf(get(engine, "configs"))) {
    const v = textOf(e.value);
    if (v !== null) out.set(k, { kind: "set", key: k, value: v, line: e.keyPos.line, file: e.keyPos.file });
  }
  for (const item of [...itemsOf(get(engine, "env")), ...itemsOf(get(spec, "env"))]) {
    const k = textOf(get(item, "name"));
    const v = textOf(get(item, "value"));
    if (k !== null && v !== null) out.set(k, { kind: "set", key: k, value: v, line: item.pos.line, file: item.pos.file });
  }
  return [...out.values()].filter(
    (e) => e.kind === "set" && /^(VLLM_[A-Z0-9_]+|ENGINE|WEIGHTS_MIB|OVERHEAD_MIB|KV_BYTES_PER_TOKEN|MODEL_CONFIG)$/.test(e.key),
  );
}

export function productionStackDeploys(path: string, doc: KNode, problems: K8sProblem[]): K8sDeploy[] {
  const engine = get(doc, "servingEngineSpec") as KNode;
  if (textOf(get(engine, "enableEngine")) === "false") return [];
  const port = textOf(get(engine, "containerPort")) ?? "8000";
  const out: K8sDeploy[] = [];
  for (const spec of itemsOf(get(engine, "modelSpec"))) {
    if (spec.t !== "map") continue;
    const name = textOf(get(spec, "name"));
    if (name === null || textOf(get(spec, "enabled")) === "false") continue;
    const line = keyPosOf(spec, "name")?.line ?? spec.pos.line;
    if (textOf(getIn(spec, "raySpec", "enabled")) === "true") {
      problems.push({
        kind: "unresolved",
        file: path,
        line,
        message: `modelSpec ${name} runs on Ray (raySpec.enabled): kvgate reads the chart's Deployment form only, so ${name} is not sized`,
        service: name,
      });
      continue;
    }
    const repository = textOf(get(spec, "repository"));
    const tag = textOf(get(spec, "tag"));
    if (repository === null || tag === null || textOf(get(spec, "modelURL")) === null) {
      const missing = repository === null ? "repository" : tag === null ? "tag" : "modelURL";
      problems.push({
        kind: "parse",
        file: path,
        line,
        message: `modelSpec ${name} has no ${missing}; helm refuses to render it (Required value 'modelSpec.${missing}' must be defined)`,
        service: name,
      });
      continue;
    }
    const keda = get(spec, "keda");
    const kedaOn = textOf(get(keda, "enabled")) === "true";
    const countAt = (node: KNode | undefined, key: string, via: string) => {
      const v = textOf(get(node, key));
      const kp = keyPosOf(node, key);
      return v !== null && kp && /^\d+$/.test(v.trim()) ? { count: Number(v), via, file: kp.file, line: kp.line } : null;
    };
    const replicas = (kedaOn
      ? countAt(keda, "maxReplicaCount", "keda.maxReplicaCount")
      : countAt(spec, "replicaCount", "replicaCount")) ?? {
      count: 1,
      via: "default",
      file: path,
      line,
    };
    const base: WorkloadBase = { path, kind: "modelSpec", workload: name, namespace: null, file: path, line, replicas, podsPerReplica: 1 };
    const image = get(spec, "repository") as KNode;
    const words = commandWords(spec, port, line);
    const edits: EnvEdit[] = [
      { kind: "set", key: "IMAGE", value: `${repository}:${tag}`, line: image.pos.line, file: path },
      ...variableEdits(engine, spec),
      {
        kind: "flags",
        key: "COMMAND",
        value: shellJoin(words.map((x) => x.word)),
        line,
        file: path,
        wordLines: words.map((x) => x.line),
        wordKeys: words.map((x) => x.as),
      },
    ];
    const gpu = gpuOf(spec, name, problems);
    out.push({ ...deployBase(base, null), edits, gpu, gpusPerReplica: gpu?.count ?? 0, nodes: nodesOf(spec) });
  }
  return out;
}
