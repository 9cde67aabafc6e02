// A pod template as the reader needs it: where its pods may land (nodeSelector, required node
// affinity, nodeName) and one deploy per container, each with the settings it deploys and its GPUs.
import type { K8sDeploy, K8sProblem, NodeChoice, Replicas, WorkloadKind } from "./records.js";
import { readContainer, type ConfigMaps } from "./container.js";
import { entriesOf, get, getIn, itemsOf, keyPosOf, textOf, type KNode } from "./tree.js";

/** The `In` terms of required node-affinity selector terms: per label, the values any term accepts. */
export function affinityChoices(terms: KNode | undefined, via: string): NodeChoice[] {
  const byKey = new Map<string, NodeChoice>();
  for (const term of itemsOf(terms)) {
    for (const expr of itemsOf(get(term, "matchExpressions"))) {
      const key = textOf(get(expr, "key"));
      if (key === null || textOf(get(expr, "operator")) !== "In") continue;
      const values = itemsOf(get(expr, "values")).flatMap((v) => (textOf(v) === null ? [] : [textOf(v) as string]));
      const got = byKey.get(key);
      if (got) got.values = [...new Set([...got.values, ...values])];
      else byKey.set(key, { key, values, via, file: expr.pos.file, line: expr.pos.line });
    }
  }
  return [...byKey.values()];
}

/** Where a pod spec's pods may land (core/v1 PodSpec: nodeSelector, affinity.nodeAffinity, nodeName). */
export function nodeChoicesOf(spec: KNode | undefined): NodeChoice[] {
  const out: NodeChoice[] = [];
  for (const [key, e] of entriesOf(get(spec, "nodeSelector"))) {
    const v = textOf(e.value);
    if (v !== null) out.push({ key, values: [v], via: "nodeSelector", file: e.keyPos.file, line: e.keyPos.line });
  }
  const terms = getIn(spec, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms");
  out.push(...affinityChoices(terms, "nodeAffinity"));
  const nodeName = get(spec, "nodeName");
  const name = textOf(nodeName);
  if (nodeName && name) out.push({ key: "nodeName", values: [name], via: "nodeName", file: nodeName.pos.file, line: nodeName.pos.line });
  return out;
}

export interface WorkloadBase {
  path: string;
  kind: WorkloadKind;
  workload: string;
  namespace: string | null;
  file: string;
  line: number;
  replicas: Replicas;
  podsPerReplica: number;
}

export interface PodContext {
  problems: K8sProblem[];
  configMaps: ConfigMaps;
  runsEngine: (words: readonly string[]) => boolean;
  files: string[];
}

/** One deploy per container of the pod spec; `extraGpus` adds a group's other pods' GPUs (a LeaderWorkerSet's workers). */
export function podDeploys(base: WorkloadBase, spec: KNode | undefined, ctx: PodContext, extraGpus = 0): K8sDeploy[] {
  const containers = get(spec, "containers");
  if (containers !== undefined && containers.t !== "seq") {
    ctx.problems.push({
      kind: "parse",
      file: containers.pos.file,
      line: containers.pos.line,
      message: `containers of ${base.workload} must be a list; the API server refuses the object`,
      service: base.workload,
    });
    return [];
  }
  const nodes = nodeChoicesOf(spec);
  return itemsOf(containers).flatMap((c): K8sDeploy[] => {
    if (c.t !== "map") return [];
    const name = textOf(get(c, "name"));
    const read = readContainer(c, {
      service: base.workload,
      problems: ctx.problems,
      runsEngine: ctx.runsEngine,
      configMaps: ctx.configMaps,
      namespace: base.namespace,
    });
    for (const f of read.files) if (!ctx.files.includes(f)) ctx.files.push(f);
    const gpu = read.gpu;
    return [
      {
        ...deployBase(base, name),
        edits: read.edits,
        gpu,
        gpusPerReplica: (gpu?.count ?? 0) + extraGpus,
        nodes,
      },
    ];
  });
}

/** The fields every deploy of a workload shares. */
export function deployBase(base: WorkloadBase, container: string | null): Omit<K8sDeploy, "edits" | "gpu" | "gpusPerReplica" | "nodes"> {
  return {
    playbook: base.path,
    kubernetes: base.path,
    service: base.workload,
    envFile: base.path,
    kind: base.kind,
    workload: base.workload,
    container,
    namespace: base.namespace,
    file: base.file,
    line: base.line,
    replicas: base.replicas,
    podsPerReplica: base.podsPerReplica,
  };
}

/** An integer field (`replicas: 3`), with where it is written; `fallback` when absent. */
export function countField(
  node: KNode | undefined,
  key: string,
  fallback: number,
  problems: K8sProblem[],
  service: string,
): { count: number; via: string; file: string; line: number } | null {
  const v = get(node, key);
  const at = keyPosOf(node, key);
  const raw = textOf(v);
  if (!v || raw === null || !at) return null;
  if (!/^\d+$/.test(raw.trim())) {
    problems.push({
      kind: "parse",
      file: at.file,
      line: at.line,
      message: `${key}: ${JSON.stringify(raw)} of ${service} is not a whole number; the API server refuses it`,
      service,
    });
    return { count: fallback, via: key, file: at.file, line: at.line };
  }
  return { count: Number(raw.trim()), via: key, file: at.file, line: at.line };
}
