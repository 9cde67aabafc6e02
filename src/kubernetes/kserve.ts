// A KServe InferenceService (serving.kserve.io/v1beta1) as its predictor runs:
// - `predictor.containers`: a custom container, read like any pod's;
// - `predictor.model`: the runtime's container with the model's fields merged over it, as KServe's
//   MergeRuntimeContainers does (pkg/controller/v1beta1/inferenceservice/utils: the runtime container
//   is the base, the model's `args` are appended to the runtime's, `env` is merged by name with the
//   model's winning, `resources` are the model's). The runtime is a ServingRuntime or
//   ClusterServingRuntime of the repository named by `runtime`, else, for `modelFormat: huggingface`,
//   KServe's own Hugging Face runtime (config/runtimes/kserve-huggingfaceserver.yaml: args
//   `--model_name={{.Name}}`), which serves with vLLM unless `--backend` says otherwise
//   (huggingfaceserver/__main__.py: the vLLM engine args are its own flags; the model is `--model_id`,
//   else what `storageUri` downloads to /mnt/models).
// Pods: `minReplicas` (default 1) up to `maxReplicas`: each pod the autoscaler may run is a seat.
import type { EnvEdit } from "../playbook/records.js";
import type { K8sDeploy } from "./records.js";
import { countField, deployBase, nodeChoicesOf, podDeploys, type PodContext, type WorkloadBase } from "./pod.js";
import { readContainer } from "./container.js";
import { metadataOf } from "./workloads.js";
import { get, itemsOf, textOf, type KMap, type KNode } from "./tree.js";

/** ServingRuntimes of the repository by name: their first container (the `kserve-container`). */
export type Runtimes = (name: string) => KNode | null;

/** The Hugging Face runtime's backends that are not vLLM (huggingfaceserver's Backend enum). */
const NOT_VLLM = new Set(["huggingface", "triton"]);

function mergedEnv(base: KNode | undefined, over: KNode | undefined): KNode[] {
  const out = new Map<string, KNode>();
  for (const e of [...itemsOf(base), ...itemsOf(over)]) out.set(textOf(get(e, "name")) ?? "", e);
  return [...out.values()];
}

/** The runtime container with the model's fields over it (KServe's MergeRuntimeContainers). */
function mergeContainer(runtime: KNode | null, model: KMap): KMap {
  const entries = new Map(runtime?.t === "map" ? runtime.entries : []);
  for (const [k, e] of model.entries) {
    if (k === "args" && entries.has("args")) {
      const items = [...itemsOf(entries.get("args")?.value), ...itemsOf(e.value)];
      entries.set("args", { keyPos: e.keyPos, value: { t: "seq", items, pos: e.value.pos } });
    } else if (k === "env" && entries.has("env")) {
      entries.set("env", { keyPos: e.keyPos, value: { t: "seq", items: mergedEnv(entries.get("env")?.value, e.value), pos: e.value.pos } });
    } else entries.set(k, e);
  }
  return { t: "map", entries, pos: model.pos };
}

/** `hf://org/name:revision` → `org/name`. */
function modelOfStorage(uri: string): string | null {
  const m = /^hf:\/\/([^:]+?)(:[^/]*)?$/.exec(uri.trim());
  return m ? (m[1] as string) : null;
}

export function inferenceServiceDeploys(path: string, doc: KNode, ctx: PodContext, runtimes: Runtimes): K8sDeploy[] {
  const meta = metadataOf(doc);
  if (meta.name === null) return [];
  const name = meta.name;
  const predictor = get(get(doc, "spec"), "predictor");
  if (!predictor) return [];
  const min = countField(predictor, "minReplicas", 1, ctx.problems, name);
  const max = countField(predictor, "maxReplicas", 1, ctx.problems, name);
  const replicas =
    max && max.count > (min?.count ?? 1) ? { ...max } : (min ?? { count: 1, via: "default", file: doc.pos.file, line: meta.line });
  const base: WorkloadBase = {
    path,
    kind: "InferenceService",
    workload: name,
    namespace: meta.namespace,
    file: doc.pos.file,
    line: meta.line,
    replicas,
    podsPerReplica: 1,
  };
  if (get(predictor, "containers")) return podDeploys(base, predictor, ctx);
  const model = get(predictor, "model");
  if (model?.t !== "map") return [];
  const format = textOf(get(get(model, "modelFormat"), "name"));
  const runtimeName = textOf(get(model, "runtime"));
  const repoRuntime = runtimeName ? runtimes(runtimeName) : null;
  const huggingface = repoRuntime === null && format?.toLowerCase() === "huggingface";
  if (runtimeName && repoRuntime === null && !huggingface) {
    ctx.problems.push({
      kind: "unresolved",
      file: model.pos.file,
      line: model.pos.line,
      message:
        `runtime ${runtimeName} of ${name} is not a ServingRuntime in the repository; ` +
        `what it runs is unknown to kvgate (commit it under the kubernetes globs)`,
      service: name,
    });
    return [];
  }
  if (!repoRuntime && !huggingface) return [];
  const container = mergeContainer(repoRuntime, model);
  const read = readContainer(container, {
    service: name,
    problems: ctx.problems,
    runsEngine: ctx.runsEngine,
    configMaps: ctx.configMaps,
    namespace: meta.namespace,
  });
  const edits: EnvEdit[] = [...read.edits];
  // Without a GPU KServe runs the runtime's CPU image (vLLM's CPU backend): no card to size, no seat.
  if (huggingface && read.gpu !== null) edits.push(...huggingfaceEdits(model));
  return [{ ...deployBase(base, null), edits, gpu: read.gpu, gpusPerReplica: read.gpu?.count ?? 0, nodes: nodeChoicesOf(predictor) }];
}

/** What KServe's Hugging Face runtime adds: its engine (vLLM, unless `--backend` names another) and the model it serves. */
function huggingfaceEdits(model: KMap): EnvEdit[] {
  const args = itemsOf(get(model, "args")).map((a) => ({ text: textOf(a) ?? "", line: a.pos.line }));
  const flag = (f: string): { value: string; line: number } | null => {
    let found: { value: string; line: number } | null = null;
    args.forEach((a, i) => {
      if (a.text.startsWith(`${f}=`)) found = { value: a.text.slice(f.length + 1), line: a.line };
      else if (a.text === f && args[i + 1]) found = { value: (args[i + 1] as { text: string }).text, line: a.line };
    });
    return found;
  };
  const out: EnvEdit[] = [];
  const format = get(model, "modelFormat") as KNode;
  const backend = flag("--backend");
  if (!backend || !NOT_VLLM.has(backend.value.toLowerCase()))
    out.push({ kind: "set", key: "ENGINE", value: "vllm", line: format.pos.line, file: format.pos.file });
  const id = flag("--model_id") ?? flag("--model-id");
  const storage = get(model, "storageUri");
  const fromStorage = textOf(storage) === null ? null : modelOfStorage(textOf(storage) as string);
  if (id) out.push({ kind: "set", key: "MODEL", value: id.value, line: id.line, file: format.pos.file });
  else if (fromStorage && storage)
    out.push({ kind: "set", key: "MODEL", value: fromStorage, line: storage.pos.line, file: storage.pos.file });
  return out;
}

/** The first container of a ServingRuntime or ClusterServingRuntime object. */
export function runtimeContainer(doc: KNode): KNode | null {
  const first = itemsOf(get(get(doc, "spec"), "containers"))[0];
  return first ?? null;
}
