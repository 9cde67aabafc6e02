// Which Kubernetes files a deploy unit is about: those it changes (a manifest, a values file, or a
// ConfigMap file a workload loads), and every one under --all. A changed manifest is one deploy of
// every workload it sets; the workload-level rules (k8s/*) report once per workload, not per replica.
import type { K8sDeploy, K8sRead, K8sSeat } from "../kubernetes/records.js";
import type { UnitView } from "./playbooks.js";

function changedPaths(ctx: UnitView): Set<string> | null {
  if (ctx.unit.kind === "all") return null;
  // A binary file has no text (`after` null) but is there: a manifest turned binary is read (and refused).
  return new Set(ctx.unit.files.filter((f) => f.after !== null || (f.binary && f.status !== "deleted")).map((f) => f.path));
}

export function kubernetesInUnit(ctx: UnitView): K8sRead[] {
  const all = ctx.after.kubernetes?.reads ?? [];
  const changed = changedPaths(ctx);
  return changed === null ? all : all.filter((r) => changed.has(r.path) || r.files.some((f) => changed.has(f)));
}

/** The first replica of each running deploy of the unit's files: what a workload-level rule reads. */
export function workloadSeatsInUnit(ctx: UnitView): K8sSeat[] {
  const files = new Set(kubernetesInUnit(ctx).map((r) => r.path));
  return (ctx.after.kubernetes?.seats ?? []).filter((s) => s.replica === 0 && files.has(s.kubernetes));
}

/** Every deploy of the unit's files that kvgate took as a seat. */
export function deploysInUnit(ctx: UnitView): K8sDeploy[] {
  return kubernetesInUnit(ctx).flatMap((r) => r.deploys);
}
