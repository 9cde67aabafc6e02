// kv/graph-headroom: the CUDA graphs a seat captures at boot must fit in what its card has left, or
// the capture fails with an out-of-memory and vLLM does not start (src/kv/overhead.ts,
// src/kv/graphs.ts). An unpinned seat before vLLM 0.21 captures its graphs after profiling, outside
// --gpu-memory-utilization: in (1 − utilization) × total, less its own CUDA context and its
// neighbours, plus the activation peak the profile run freed; from 0.21 vLLM profiles them inside the
// budget (version fact cuda_graphs_in_budget; PR #38284) and the rule does not apply. A seat with a
// byte pin (--kv-cache-memory-bytes) skips the profile (Worker.determine_available_memory returns the
// pin), so its graphs get total − weights − pin − non-torch − context − neighbours. --enforce-eager
// captures none.
import { defineCheck, type Report } from "./define.js";
import { acrossVersions, kvData, placeOf, vllmSeats, type VllmSeat } from "../kv/seat.js";
import { graphHeadroom } from "../kv/overhead.js";
import { cardUsage, footprintOf, usageOfCard, type CardUsage } from "../kv/card-usage.js";
import { cudaTotalOf, type Card } from "../model/types.js";
import { size } from "../kv/format.js";
import { settingFix } from "../model/setting-fix.js";
import { showFix, type ValueFix } from "../model/value-fix.js";
import type { CheckContext } from "./define.js";

type Common = { name: string; graph_bytes: number; graph_formula: string; free_bytes: number; versions_note?: string };

const eager = (d: { fix?: ValueFix }) => (d.fix ? `set ${showFix(d.fix)} or lower, or add --enforce-eager` : "add --enforce-eager");

const messages = {
  short: (
    d: Common & {
      utilization: number;
      total_bytes: number;
      outside_bytes: number;
      context_bytes: number;
      others_bytes: number;
      activation_bytes: number;
      fix?: ValueFix;
    },
  ) =>
    `${d.name}: CUDA graphs are captured outside --gpu-memory-utilization on this vLLM version: ` +
    `they take ${size(d.graph_bytes)} (${d.graph_formula}), and the card leaves ` +
    `${size(d.free_bytes)} ((1 − ${d.utilization}) × ${size(d.total_bytes)} = ${size(d.outside_bytes)} ` +
    `− its CUDA context ${size(d.context_bytes)}${d.others_bytes > 0 ? ` − neighbours ${size(d.others_bytes)}` : ""} ` +
    `+ the ${size(d.activation_bytes)} activation peak freed after ` +
    `profiling): the capture runs out of memory at boot; ${eager(d)}${d.versions_note ?? ""}`,
  pinned: (d: Common & { total_bytes: number; held_bytes: number; fix?: ValueFix }) =>
    `${d.name}: with a KV pin vLLM skips profiling and captures its CUDA graphs in ` +
    `what the card has left: ${size(d.total_bytes)} − ${size(d.held_bytes)} (weights, ` +
    `pin, non-torch memory, CUDA context, neighbours) = ${size(d.free_bytes)}, below the ` +
    `${size(d.graph_bytes)} they take (${d.graph_formula}); ` +
    `${d.fix ? `set ${showFix(d.fix)}, or add --enforce-eager` : "add --enforce-eager"}${d.versions_note ?? ""}`,
};

type R = Report<typeof messages>;

/** What the card's other occupants hold (the seat boots last). */
function othersOn(usages: CardUsage[], seat: VllmSeat, card: Card): number {
  const u = usageOfCard(usages, card.host, card.index);
  return u ? u.entries.filter((e) => e.name !== seat.name).reduce((n, e) => n + (footprintOf(e) ?? 0), 0) : 0;
}

function shortOn(seat: VllmSeat, card: Card, usages: CardUsage[], ctx: CheckContext): R | null {
  const graphs = seat.graphMemory;
  if (!graphs) return null;
  const total = cudaTotalOf(card);
  const context = ctx.policy.vllm.context_overhead_bytes;
  const others = othersOn(usages, seat, card);
  const base = {
    ...kvData(seat),
    name: seat.name,
    host: card.host,
    gpu: card.index,
    total_bytes: total,
    graph_bytes: graphs.bytes,
    graph_formula: graphs.formula,
    context_bytes: context,
    others_bytes: others,
  };
  const at = { service: seat.name, ...placeOf(seat, seat.pinned !== null ? "kv_pin" : "gpu_memory_utilization") };
  if (seat.pinned !== null) {
    const nonTorch = seat.estimate?.overhead.nonTorch ?? 0.2 * 2 ** 30;
    const held = (seat.weights ?? 0) + seat.pinned + Math.round(nonTorch) + context + others;
    const free = total - held;
    if (graphs.bytes <= free) return null;
    // A smaller pin makes room, unless it would no longer hold what kv/covers-context requires.
    const pin = seat.pinned - (graphs.bytes - free);
    const fix = seat.required !== null && pin >= seat.required ? settingFix(ctx.pack, seat.service, "kv_pin", pin) : null;
    return { message: "pinned", ...at, data: { ...base, held_bytes: held, free_bytes: free, ...(fix ? { fix } : {}) } };
  }
  if (seat.vf.cudaGraphsInBudget) return null;
  // The profile's peak (the larger of the forward pass and the sampler) is free again when the graphs are captured.
  const activation = seat.estimate ? Math.max(seat.estimate.overhead.activation, seat.estimate.overhead.sampler) : 0;
  const h = graphHeadroom({
    totalBytes: total,
    utilization: seat.utilization,
    graphBytes: graphs.bytes,
    contextBytes: context,
    othersBytes: others,
    activationBytes: activation,
  });
  if (h.short === 0) return null;
  const maxUtil = Math.floor(((total - context - others + activation - graphs.bytes) / total) * 100 + 1e-9) / 100;
  // Lowering utilization also lowers the KV estimate: advise it only while the estimate still holds the context.
  const kvAfter = seat.estimate ? seat.estimate.bytes - (seat.utilization - maxUtil) * total : -1;
  const fix =
    maxUtil > 0 && maxUtil < seat.utilization && seat.required !== null && kvAfter >= seat.required
      ? settingFix(ctx.pack, seat.service, "gpu_memory_utilization", maxUtil)
      : null;
  return {
    message: "short",
    ...at,
    data: {
      ...base,
      utilization: seat.utilization,
      outside_bytes: h.outside,
      free_bytes: h.free,
      activation_bytes: activation,
      max_utilization: maxUtil,
      ...(fix ? { fix } : {}),
    },
  };
}

export const kvGraphHeadroom = defineCheck({
  id: "kv/graph-headroom",
  severity: "error",
  description:
    "The CUDA graphs a vLLM seat captures at boot do not fit in what " +
    "its card has left (outside the utilization budget before vLLM " +
    "0.21, or beside a byte pin): the capture runs out of memory.",
  messages,
  run(ctx) {
    const usages = cardUsage(ctx.after, ctx.policy, ctx.pack);
    return vllmSeats(ctx.after, ctx.policy, ctx.pack).flatMap((primary): R[] =>
      acrossVersions(primary, (seat) => {
        if (!seat.graphs) return null;
        for (const index of seat.cards) {
          const card = ctx.after.cards.find((c) => c.host === seat.host && c.index === index);
          const r = card ? shortOn(seat, card, usages, ctx) : null;
          if (r) return r;
        }
        return null;
      }),
    );
  },
});
