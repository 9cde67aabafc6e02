// k8s/gpu-request: what a vLLM workload's pods ask of the GPUs must be what the seat runs on. Each
// tensor × pipeline rank takes a GPU of its own: asking for fewer, vLLM cannot start its ranks;
// asking for more, the extra GPUs sit idle where no other pod can have them. A pod that asks for no
// GPU gets none (and the chart's `requestGPU: 0.5` renders none: `int 0.5` is 0). On a time-sliced
// or MPS-shared pool, two replicas of the resource may be two slices of one card, which tensor
// parallelism cannot use. The fix names the key the file uses (`nvidia.com/gpu`, `requestGPU`).
import { defineCheck, type Report } from "./define.js";
import { workloadSeatsInUnit } from "../model/kubernetes.js";
import { tpNeedsCards } from "../model/engine.js";
import type { ValueFix } from "../model/value-fix.js";

type Where = { workload: string; key: string; raw: string; need: number; tp_key: string; tp: number; pp: number };

const ranks = (d: Where): string => (d.pp > 1 ? `${d.tp_key} ${d.tp} × ${d.pp} pipeline stages` : `${d.tp_key} ${d.tp}`);

const messages = {
  none: (d: Where & { resource: string }) =>
    d.key === "requestGPU"
      ? `${d.workload}: requestGPU: ${d.raw} renders no GPU (the chart asks for int(requestGPU) ` +
        `= 0), so its pods get none and vLLM fails at boot; set requestGPU: ${d.need}`
      : `${d.workload}: its pods ask for no GPU (no ${d.resource} under resources.limits), so ` +
        `Kubernetes gives them none and vLLM fails at boot; add limits ${d.resource}: ${d.need}`,
  mismatch: (d: Where & { count: number; pods: number }) =>
    `${d.workload}: ${ranks(d)} needs ${d.need} GPUs per ` +
    `${d.pods > 1 ? `group of ${d.pods} pods` : "pod"}, but ${d.key} asks ${d.count}${d.pods > 1 ? " in all" : ""}: ` +
    `${d.count < d.need ? "vLLM cannot start its ranks" : `${d.count - d.need} of them sit idle, held from every other pod`}; set ` +
    `${d.key}: ${d.need}${d.count < d.need ? "" : ` (or ${d.tp_key} to use them)`}`,
  sharedMulti: (d: Where & { count: number; pool: string; kind: string; replicas: number }) =>
    `${d.workload}: asks for ${d.count} ${d.key} on ${d.pool}, whose cards are shared ` +
    `(${d.kind} ×${d.replicas}): the device plugin may give it ${d.count} slices of one ` +
    `card, and ${ranks(d)} needs ${d.need} distinct GPUs; run it on a pool without sharing`,
};

export const k8sGpuRequest = defineCheck({
  id: "k8s/gpu-request",
  severity: "error",
  description:
    "A vLLM workload's pods ask for no GPU, or for a number of GPUs other than its " +
    "tensor × pipeline parallel size, or for several slices of a time-sliced card.",
  messages,
  run(ctx) {
    const pools = new Map((ctx.after.kubernetes?.pools ?? []).map((p) => [p.host, p]));
    return workloadSeatsInUnit(ctx).flatMap((seat): Report<typeof messages>[] => {
      const s = ctx.after.services.find((x) => x.name === seat.service);
      if (!s || !tpNeedsCards(ctx.pack, s)) return [];
      const pp = typeof s.settings.pp?.value === "number" ? s.settings.pp.value : 1;
      const need = Math.max(1, s.tp) * Math.max(1, pp);
      const gpu = seat.gpu;
      const base: Where = {
        workload: seat.workload,
        key: gpu?.key ?? "nvidia.com/gpu",
        raw: gpu?.raw ?? "",
        need,
        tp_key: s.origins.tp?.name ?? "tensor parallel size",
        tp: s.tp,
        pp,
      };
      const at = gpu ? { file: gpu.file, line: gpu.line } : { file: seat.file, line: seat.line };
      const fix = (value: number): { fix: ValueFix } | Record<string, never> =>
        gpu && seat.podsPerReplica === 1 ? { fix: { file: gpu.file, line: gpu.line, key: gpu.key, value: String(value) } } : {};
      if (seat.gpusPerReplica === 0)
        return [
          {
            message: "none",
            data: { ...base, resource: gpu?.resource ?? "nvidia.com/gpu", ...fix(need) },
            ...at,
            service: seat.service,
            key: seat.workload,
          },
        ];
      const pool = seat.pool ? pools.get(seat.pool) : undefined;
      if (pool?.sharing && (gpu?.count ?? 0) > 1)
        return [
          {
            message: "sharedMulti",
            data: { ...base, count: gpu?.count ?? 0, pool: pool.host, kind: pool.sharing.kind, replicas: pool.sharing.replicas },
            ...at,
            service: seat.service,
            key: seat.workload,
          },
        ];
      if (seat.gpusPerReplica === need) return [];
      return [
        {
          message: "mismatch",
          data: { ...base, count: seat.gpusPerReplica, pods: seat.podsPerReplica, ...fix(need) },
          ...at,
          service: seat.service,
          key: seat.workload,
        },
      ];
    });
  },
});
