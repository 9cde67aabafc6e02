// The workload kinds whose pods run a seat, each read by its own API's semantics:
// apps/v1 Deployment and StatefulSet (spec.replicas, default 1; spec.template), core/v1 Pod (one),
// leaderworkerset.x-k8s.io/v1 LeaderWorkerSet (spec.replicas groups, default 1, of
// leaderWorkerTemplate.size pods, default 1; the leaderTemplate, else the workerTemplate, runs the
// leader: a group is one seat over every pod's GPUs).
import type { K8sDeploy, K8sProblem } from "./records.js";
import { countField, podDeploys, type PodContext, type WorkloadBase } from "./pod.js";
import { get, getIn, keyPosOf, textOf, type KNode } from "./tree.js";
import { gpuAskOf } from "./container.js";

const APPS = new Set(["Deployment", "StatefulSet"]);

export function metadataOf(doc: KNode): { name: string | null; namespace: string | null; labels: Map<string, string>; line: number } {
  const meta = get(doc, "metadata");
  const labels = new Map<string, string>();
  const l = get(meta, "labels");
  if (l?.t === "map") for (const [k, e] of l.entries) if (textOf(e.value) !== null) labels.set(k, textOf(e.value) as string);
  const line = keyPosOf(meta, "name")?.line ?? doc.pos.line;
  return { name: textOf(get(meta, "name")), namespace: textOf(get(meta, "namespace")), labels, line };
}

/**
 * What a workload's seats are named: the production-stack chart labels its engine Deployments with
 * `model: <modelSpec name>` and `helm-release-name` (deployment-vllm-multi.yaml), so a rendered
 * Deployment is the same seat as the values file's modelSpec; otherwise metadata.name.
 */
function seatNameOf(meta: ReturnType<typeof metadataOf>): string | null {
  const model = meta.labels.get("model");
  return model && meta.labels.has("helm-release-name") ? model : meta.name;
}

/** The deploys of one object of a workload kind; [] for any other kind. */
export function workloadDeploys(path: string, doc: KNode, kind: string, ctx: PodContext): K8sDeploy[] {
  const meta = metadataOf(doc);
  const name = seatNameOf(meta);
  if (name === null) return [];
  const spec = get(doc, "spec");
  const problems: K8sProblem[] = ctx.problems;
  const at = { file: doc.pos.file, line: meta.line };
  const base = (k: WorkloadBase["kind"], replicas: WorkloadBase["replicas"], podsPerReplica = 1): WorkloadBase => ({
    path,
    kind: k,
    workload: name,
    namespace: meta.namespace,
    ...at,
    replicas,
    podsPerReplica,
  });
  const defaultReplicas = { count: 1, via: "default", ...at };
  if (APPS.has(kind)) {
    const replicas = countField(spec, "replicas", 1, problems, name) ?? defaultReplicas;
    return podDeploys(base(kind as "Deployment", replicas), getIn(spec, "template", "spec"), ctx);
  }
  if (kind === "Pod") return podDeploys(base("Pod", defaultReplicas), spec, ctx);
  if (kind === "LeaderWorkerSet") {
    const replicas = countField(spec, "replicas", 1, problems, name) ?? defaultReplicas;
    const lwt = get(spec, "leaderWorkerTemplate");
    const size = countField(lwt, "size", 1, problems, name)?.count ?? 1;
    const worker = getIn(lwt, "workerTemplate", "spec");
    const leader = getIn(lwt, "leaderTemplate", "spec") ?? worker;
    // The workers' GPUs are the group's too: one seat spans every pod of the group.
    const workerGpus = workerGpusOf(worker, name, leader === worker ? [] : problems);
    return podDeploys(base("LeaderWorkerSet", replicas, size), leader, ctx, (size - 1) * workerGpus);
  }
  return [];
}

function workerGpusOf(worker: KNode | undefined, name: string, problems: K8sProblem[]): number {
  const containers = get(worker, "containers");
  let n = 0;
  for (const c of containers?.t === "seq" ? containers.items : []) n += gpuAskOf(get(c, "resources"), name, problems)?.count ?? 0;
  return n;
}

export function isWorkloadKind(kind: string): boolean {
  return APPS.has(kind) || kind === "Pod" || kind === "LeaderWorkerSet";
}
