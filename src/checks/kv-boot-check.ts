// kv/boot-check: vLLM refuses to start unless free memory ≥ utilization × total, byte pin or not.
// On a shared card every seat must be able to boot last, after all its neighbours hold their share
// and its own CUDA context is up (vllm.context_overhead, 512 MiB by default: src/kv/overhead.ts).
import { defineCheck } from "./define.js";
import { cardUsage, footprintOf, usageOfCard } from "../kv/card-usage.js";
import { acrossVersions, kvData, placeOf, vllmSeats } from "../kv/seat.js";
import { size } from "../kv/format.js";
import { settingFix } from "../model/setting-fix.js";
import { showFix, type ValueFix } from "../model/value-fix.js";

type Data = {
  name: string;
  host: string;
  gpu: number;
  utilization: number;
  total_bytes: number;
  asked_bytes: number;
  others_bytes: number;
  free_bytes: number;
  others: string;
  max_utilization: number;
  min_utilization: number;
  fix?: ValueFix;
  versions_note?: string;
};

/**
 * Lowering utilization is the fix only while the seat's own footprint still fits in what it asks
 * (weights + pin + overhead; unpinned: weights + required KV + overhead): below that vLLM cannot load
 * it at all, and 0 is not a utilization vLLM accepts. Otherwise the card is over-full and the fix is
 * to move a seat or shrink a neighbour, not a number.
 */
const advice = (d: Data): string =>
  d.fix
    ? `set ${showFix(d.fix)} or lower, down to ${d.min_utilization} (the KV pin still sizes the cache)`
    : `no utilization fits: the seat needs at least ${d.min_utilization} of ` +
      `the card, the neighbours leave ${d.max_utilization}; move a seat off ` +
      `${d.host} gpu ${d.gpu} (kvgate plan --host ${d.host}) or shrink a neighbour`;

export const kvBootCheck = defineCheck({
  id: "kv/boot-check",
  severity: "error",
  description: "A vLLM seat on a shared card asks for utilization × total, more than its neighbours leave free.",
  messages: {
    boot: (d: Data) =>
      `${d.name}: vLLM boots only with ${d.utilization} × ${size(d.total_bytes)} ` +
      `= ${size(d.asked_bytes)} free on ${d.host} gpu ${d.gpu}, but its ` +
      `neighbours hold ${size(d.others_bytes)} (${d.others}), leaving ` +
      `${size(d.free_bytes)}: booting last it fails; ${advice(d)}${d.versions_note ?? ""}`,
  },
  run(ctx) {
    const usages = cardUsage(ctx.after, ctx.policy, ctx.pack);
    return vllmSeats(ctx.after, ctx.policy, ctx.pack).flatMap((primary) =>
      acrossVersions(primary, (seat) => {
        for (const index of seat.cards) {
          const l = usageOfCard(usages, seat.host, index);
          if (!l || !l.shared) continue;
          const others = l.entries.filter((e) => e.name !== seat.name);
          const othersBytes = others.reduce((n, e) => n + (footprintOf(e) ?? 0), 0);
          // vLLM compares free memory with utilization × the total CUDA reports (mem_get_info), which the
          // inventory's cuda_total gives when it differs from the card's size (95.6 GiB on a "96 GB" card).
          const cudaTotal = l.cuda_total_bytes ?? l.total_bytes;
          const asked = Math.round(seat.utilization * cudaTotal);
          // vLLM measures free memory after its own CUDA context is up (vllm.context_overhead).
          const context = ctx.policy.vllm.context_overhead_bytes;
          const free = cudaTotal - othersBytes - context;
          if (asked <= free) continue;
          const maxUtil = Math.max(0, Math.floor((free / cudaTotal) * 100 + 1e-9) / 100);
          const own = (seat.weights ?? 0) + (seat.pinned ?? seat.required ?? 0) + seat.overhead;
          const minUtil = Math.ceil((own / cudaTotal) * 100 - 1e-9) / 100;
          const fix = maxUtil > 0 && maxUtil >= minUtil ? settingFix(ctx.pack, seat.service, "gpu_memory_utilization", maxUtil) : null;
          return {
            message: "boot" as const,
            service: seat.name,
            ...placeOf(seat, "gpu_memory_utilization"),
            data: {
              ...kvData(seat),
              name: seat.name,
              host: l.host,
              gpu: l.index,
              utilization: seat.utilization,
              total_bytes: cudaTotal,
              card_total_bytes: l.total_bytes,
              asked_bytes: asked,
              others_bytes: othersBytes,
              free_bytes: free,
              context_overhead_bytes: context,
              others: others.map((e) => `${e.name} ${footprintOf(e) === null ? "?" : size(footprintOf(e) as number)}`).join(", "),
              max_utilization: maxUtil,
              min_utilization: minUtil,
              ...(fix ? { fix } : {}),
            },
          };
        }
        return null;
      }),
    );
  },
});
