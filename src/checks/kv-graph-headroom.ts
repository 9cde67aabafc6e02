// kv/graph-headroom: before vLLM 0.21 the CUDA graphs a seat captures after profiling live outside
// --gpu-memory-utilization ("CUDA graphs can take additional 1~3 GiB memory per GPU"), so the
// (1 − utilization) × total a seat leaves must hold them, or capture fails with an out-of-memory at
// boot. From 0.21 vLLM estimates them inside the budget (version fact cuda_graphs_in_budget), and
// --enforce-eager captures none.
import { defineCheck, type Report } from "./define.js";
import { kvData, placeOf, vllmSeats } from "../kv/seat.js";
import { graphHeadroom } from "../kv/overhead.js";
import { cudaTotalOf } from "../model/types.js";
import { size } from "../kv/format.js";

const messages = {
  short: (d: {
    name: string;
    utilization: number;
    total_bytes: number;
    outside_bytes: number;
    graph_bytes: number;
    max_utilization: number;
  }) =>
    `${d.name}: CUDA graphs are captured outside --gpu-memory-utilization on this vLLM version: (1 − ${d.utilization}) × ${size(d.total_bytes)} leaves ${size(d.outside_bytes)}, below the ${size(d.graph_bytes)} they take; set GPU_MEMORY_UTILIZATION=${d.max_utilization} or lower, or add --enforce-eager`,
};

type R = Report<typeof messages>;

export const kvGraphHeadroom = defineCheck({
  id: "kv/graph-headroom",
  severity: "warning",
  description:
    "A vLLM seat that captures CUDA graphs outside its utilization budget (vLLM < 0.21, no --enforce-eager) leaves less than they need on its card.",
  messages,
  run(ctx) {
    return vllmSeats(ctx.after, ctx.policy, ctx.pack).flatMap((seat): R[] => {
      if (!seat.graphs || seat.vf.cudaGraphsInBudget) return [];
      for (const index of seat.cards) {
        const card = ctx.after.cards.find((c) => c.host === seat.host && c.index === index);
        if (!card) continue;
        // What lies outside the budget is (1 − utilization) × the total CUDA reports (cuda_total).
        const total = cudaTotalOf(card);
        const h = graphHeadroom({ totalBytes: total, utilization: seat.utilization });
        if (h.short === 0) continue;
        const maxUtil = Math.floor(((total - h.needed) / total) * 100 + 1e-9) / 100;
        return [
          {
            message: "short" as const,
            service: seat.name,
            ...placeOf(seat, "gpu_memory_utilization"),
            data: {
              ...kvData(seat),
              name: seat.name,
              host: card.host,
              gpu: card.index,
              utilization: seat.utilization,
              total_bytes: total,
              outside_bytes: h.outside,
              graph_bytes: h.needed,
              max_utilization: maxUtil,
              vllm_version: seat.vf.version,
            },
          },
        ];
      }
      return [];
    });
  },
});
