// kv/unpinned-shared-card: without a byte pin vLLM sizes its KV by profiling free memory against
// --gpu-memory-utilization, and a neighbour booting at the same time is counted as its own: the KV
// then depends on who booted first.
import { defineCheck } from "./define.js";
import { cardUsage, usageOfCard } from "../kv/card-usage.js";
import { kvData, pinFix, placeOf, setPin, vllmSeats } from "../kv/seat.js";
import { size } from "../kv/format.js";
import { pinRaiseFits } from "../fix/kv-room.js";

export const kvUnpinnedSharedCard = defineCheck({
  id: "kv/unpinned-shared-card",
  severity: "error",
  description: "A vLLM seat on a card shared with another tenant has no KV byte pin.",
  messages: {
    unpinned: (d: {
      name: string;
      host: string;
      gpu: number;
      neighbours: string[];
      utilization: number;
      set: string | null;
      overfills?: boolean;
      required_bytes?: number | null;
    }) =>
      `${d.name}: no KV byte pin on ${d.host} gpu ${d.gpu}, shared with ${d.neighbours.join(", ")}: its KV would come from --gpu-memory-utilization ${d.utilization} profiling, which counts co-booting neighbours' memory as its own; ${d.set ? `set ${d.set}` : d.overfills ? `the pin it needs (${size(d.required_bytes ?? 0)}) would overfill the card: move a seat (kvgate plan --host ${d.host}) or lower the context, then pin it` : "set KV_CACHE_MEMORY_BYTES (add the model to the catalog to get the number)"}`,
  },
  run(ctx) {
    const usages = cardUsage(ctx.after, ctx.policy, ctx.pack);
    return vllmSeats(ctx.after, ctx.policy, ctx.pack).flatMap((seat) => {
      if (seat.pinned !== null) return [];
      const shared = seat.cards.map((i) => usageOfCard(usages, seat.host, i)).find((l) => l?.shared);
      if (!shared) return [];
      // A pin the card cannot hold (gpu/fits) or that starves a neighbour's boot is no fix.
      const fits = seat.required !== null && pinRaiseFits(usages, seat, seat.required);
      return [
        {
          message: "unpinned" as const,
          service: seat.name,
          ...placeOf(seat, "gpu_memory_utilization"),
          data: {
            ...kvData(seat),
            name: seat.name,
            host: shared.host,
            gpu: shared.index,
            neighbours: shared.entries.filter((e) => e.name !== seat.name).map((e) => e.name),
            utilization: seat.utilization,
            set: fits ? setPin(seat, seat.required as number) : null,
            overfills: seat.required !== null && !fits,
            ...(fits ? { fix: pinFix(seat, seat.required as number) } : {}),
          },
        },
      ];
    });
  },
});
