// k8s/unknown-card: a workload's pods ask for GPUs, but nothing in the repository says which card
// their nodes carry (no nodeSelector or node affinity on a pool kvgate.yaml lists or on
// `nvidia.com/gpu.product`, or a product rules/cards.yaml does not know): its seats cannot be sized,
// and a check that cannot size a seat must not pass it (docs/coverage.md).
import { defineCheck, type Report } from "./define.js";
import { kubernetesInUnit } from "../model/kubernetes.js";

const messages = {
  unknown: (d: { workload: string; replicas: number; detail: string }) =>
    `${d.workload}${d.replicas > 1 ? ` (${d.replicas} replicas)` : ""}: its card is unknown, so its KV and card fit cannot be checked: ${d.detail}`,
};

export const k8sUnknownCard = defineCheck({
  id: "k8s/unknown-card",
  severity: "error",
  description:
    "A Kubernetes workload asks for GPUs, but no nodeSelector, node affinity or fleet.pools " +
    "entry says which card its nodes carry (or rules/cards.yaml does not know it).",
  messages,
  run(ctx) {
    const files = new Set(kubernetesInUnit(ctx).map((r) => r.path));
    const byDeploy = new Map<unknown, Report<typeof messages>>();
    for (const u of ctx.after.kubernetes?.unplaced ?? []) {
      if (u.why !== "unknown-card" || !files.has(u.deploy.kubernetes) || byDeploy.has(u.deploy)) continue;
      const d = u.deploy;
      const at = d.nodes[0] ?? d.gpu ?? { file: d.file, line: d.line };
      byDeploy.set(d, {
        message: "unknown",
        data: { workload: d.workload, replicas: d.replicas.count, detail: u.detail },
        file: at.file,
        line: at.line,
        service: u.seat,
        key: `${d.kubernetes}#${d.workload}`,
      });
    }
    return [...byDeploy.values()];
  },
});
