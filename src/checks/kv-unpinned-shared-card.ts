// kv/unpinned-shared-card: without a byte pin vLLM sizes its KV by profiling free memory against
// --gpu-memory-utilization, and a neighbour booting at the same time is counted as its own: the KV
// then depends on who booted first. The fix is a pin — on a vLLM that has one (--kv-cache-memory-bytes,
// 0.10.2 on). Before it, a seat whose boots the deploy serializes (each neighbour up before it
// starts) is accepted, and any other is told to serialize its boots or upgrade, never to set a flag
// the version lacks (docs/coverage.md#advice-the-version-can-take).
import { defineCheck, type Report } from "./define.js";
import type { Service } from "../model/types.js";
import { cardUsage, usageOfCard } from "../kv/card-usage.js";
import { kvData, pinFix, placeOf, setPin, vllmSeats } from "../kv/seat.js";
import { size } from "../kv/format.js";
import { pinRaiseFits } from "../fix/kv-room.js";

const messages = {
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
    `${d.name}: no KV byte pin on ${d.host} gpu ${d.gpu}, shared with ${d.neighbours.join(", ")}: ` +
    `its KV would come from --gpu-memory-utilization ${d.utilization} profiling, ` +
    `which counts co-booting neighbours' memory as its own; ` +
    `${d.set ? `set ${d.set}` : d.overfills ? `the pin it needs (${size(d.required_bytes ?? 0)}) would overfill the card: move a seat (kvgate plan --host ${d.host}) or lower the context, then pin it` : "set KV_CACHE_MEMORY_BYTES (add the model to the catalog to get the number)"}`,
  "no-pin": (d: { name: string; host: string; gpu: number; neighbours: string[]; utilization: number; version: string }) =>
    `${d.name}: no KV byte pin on ${d.host} gpu ${d.gpu}, shared with ${d.neighbours.join(", ")}, ` +
    `and vLLM ${d.version} has none (--kv-cache-memory-bytes came in 0.10.2): ` +
    `its KV comes from --gpu-memory-utilization ${d.utilization} profiling, which counts ` +
    `a co-booting neighbour's memory as its own; start it only after ${d.neighbours.join(" and ")} ` +
    `${d.neighbours.length === 1 ? "is" : "are"} up (compose depends_on with ` +
    `condition: service_healthy, or a systemd unit with After= and Requires=) and size ` +
    `its utilization with them resident, or upgrade to vLLM 0.10.2 or later and pin it`,
};

type R = Report<typeof messages>;

export const kvUnpinnedSharedCard = defineCheck({
  id: "kv/unpinned-shared-card",
  severity: "error",
  description: "A vLLM seat on a card shared with another tenant has no KV byte pin.",
  messages,

  run(ctx) {
    const usages = cardUsage(ctx.after, ctx.policy, ctx.pack);
    const services = new Map(ctx.after.services.map((s) => [s.name, s]));
    return vllmSeats(ctx.after, ctx.policy, ctx.pack).flatMap((seat): R[] => {
      if (seat.pinned !== null) return [];
      const shared = seat.cards.map((i) => usageOfCard(usages, seat.host, i)).find((l) => l?.shared);
      if (!shared) return [];
      const neighbours = shared.entries.filter((e) => e.name !== seat.name).map((e) => e.name);
      const about = { ...kvData(seat), name: seat.name, host: shared.host, gpu: shared.index, neighbours, utilization: seat.utilization };
      if (!seat.vf.kvCacheMemoryBytesFlag) {
        if (neighbours.every((n) => bootsApart(seat.service, services.get(n)))) return [];
        return [
          {
            message: "no-pin" as const,
            service: seat.name,
            ...placeOf(seat, "gpu_memory_utilization"),
            data: { ...about, version: seat.vf.version ?? "(unknown)" },
          },
        ];
      }
      // A pin the card cannot hold (gpu/fits) or that starves a neighbour's boot is no fix.
      const fits = seat.required !== null && pinRaiseFits(usages, seat, seat.required);
      return [
        {
          message: "unpinned" as const,
          service: seat.name,
          ...placeOf(seat, "gpu_memory_utilization"),
          data: {
            ...about,
            set: fits ? setPin(seat, seat.required as number, ctx.pack) : null,
            overfills: seat.required !== null && !fits,
            ...(fits ? { fix: pinFix(seat, seat.required as number, ctx.pack) } : {}),
          },
        },
      ];
    });
  },
});

/** One of the two boots only after the other is up (a tenant, which has no deploy, is never ordered). */
function bootsApart(a: Service, b: Service | undefined): boolean {
  if (!b) return false;
  return (a.bootsAfter ?? []).includes(b.name) || (b.bootsAfter ?? []).includes(a.name);
}
