// k8s/pool-capacity: the pods of a pool ask for more cards than kvgate.yaml says the pool has
// (`fleet.pools.<pool>.count`, times the device plugin's replicas on a shared pool): the last ones
// stay Pending, and a rollout that needs them waits for ever.
import { defineCheck, type Report } from "./define.js";
import { kubernetesInUnit } from "../model/kubernetes.js";

const messages = {
  full: (d: { workload: string; pending: string; pool: string; count: number; slots: number; holders: string }) =>
    `${d.workload}: ${d.pending} stay${d.pending.includes(",") ? "" : "s"} Pending: ` +
    `${d.pool} has ${d.count} ` +
    `card${d.count === 1 ? "" : "s"}${d.slots > 1 ? ` (shared ×${d.slots}: ${d.count * d.slots} pods)` : ""}, all held by ${d.holders}; ` +
    `lower the replicas, or raise fleet.pools count if the pool has more cards`,
};

export const k8sPoolCapacity = defineCheck({
  id: "k8s/pool-capacity",
  severity: "error",
  description: "The pods of a Kubernetes pool ask for more cards than fleet.pools says it has: the last replicas stay Pending.",
  messages,
  run(ctx) {
    const k = ctx.after.kubernetes;
    if (!k) return [];
    const files = new Set(kubernetesInUnit(ctx).map((r) => r.path));
    const grouped = new Map<unknown, string[]>();
    for (const u of k.unplaced)
      if (u.why === "no-room" && files.has(u.deploy.kubernetes)) grouped.set(u.deploy, [...(grouped.get(u.deploy) ?? []), u.seat]);
    const out: Report<typeof messages>[] = [];
    for (const [deploy, pending] of grouped) {
      const d = deploy as (typeof k.unplaced)[number]["deploy"];
      const pool = k.pools.find((p) => p.host === k.unplaced.find((u) => u.deploy === d)?.pool);
      if (!pool) continue;
      const holders = k.seats.filter((s) => s.pool === pool.host).map((s) => s.service);
      out.push({
        message: "full",
        data: {
          workload: d.workload,
          pending: pending.join(", "),
          pool: pool.host,
          count: pool.count ?? 0,
          slots: pool.sharing?.replicas ?? 1,
          holders: holders.join(", "),
        },
        file: d.replicas.file,
        line: d.replicas.line,
        service: pending[0] ?? null,
        key: `${d.kubernetes}#${d.workload}`,
      });
    }
    return out;
  },
});
