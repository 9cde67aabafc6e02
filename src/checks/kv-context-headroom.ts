// kv/context-headroom: the owner's rule is "context up to published maximums if at all possible". A
// seat below its model's native maximum whose cards have room for the KV that maximum needs (every card
// keeping its reserve) gets a notice with the numbers: context today → maximum, KV today → required,
// and what each card would have spare after.
import { defineCheck, type Report } from "./define.js";
import { kvData, placeOf, requiredAt, vllmSeats } from "../kv/seat.js";
import { cardUsage, footprintOf, usageOfCard, type CardUsage } from "../kv/card-usage.js";
import { formatInt, size } from "../kv/format.js";
import { settingFix } from "../model/setting-fix.js";
import { showFixes, type ValueFix } from "../model/value-fix.js";

const messages = {
  room: (d: {
    name: string;
    max_model_len: number;
    native_max: number;
    kv_bytes: number;
    required_bytes_at_max: number;
    card_spare_after_bytes: number;
    suggestions: ValueFix[];
  }) =>
    `${d.name}: runs at ${formatInt(d.max_model_len)} tokens, below its ` +
    `model's ${formatInt(d.native_max)}, and its card has room: KV ` +
    `${size(d.kv_bytes)} → ${size(d.required_bytes_at_max)} leaves ` +
    `${size(d.card_spare_after_bytes)} spare; set ${showFixes(d.suggestions)}`,
};

type R = Report<typeof messages>;

/** Some other vLLM seat on the card that boots last today would not once `name` holds `grow` bytes more. */
function blocksNeighbourBoot(u: CardUsage, name: string, grow: number, contextBytes: number): boolean {
  const cudaTotal = u.cuda_total_bytes ?? u.total_bytes;
  return u.entries.some((e) => {
    if (e.kind !== "seat" || e.name === name) return false;
    // A neighbour that cannot boot last today is kv/boot-check's finding already, not this raise's.
    const held = u.entries.filter((o) => o !== e).reduce((n, o) => n + (footprintOf(o) ?? 0), 0);
    const asked = Math.round(e.seat.utilization * cudaTotal);
    return asked <= cudaTotal - held - contextBytes && asked > cudaTotal - held - grow - contextBytes;
  });
}

export const kvContextHeadroom = defineCheck({
  id: "kv/context-headroom",
  severity: "notice",
  description: "A vLLM seat runs below its model's native maximum context while its cards have room for the KV the maximum needs.",
  messages,
  run(ctx) {
    const round = ctx.policy.kv.round_bytes;
    const usages = cardUsage(ctx.after, ctx.policy, ctx.pack);
    return vllmSeats(ctx.after, ctx.policy, ctx.pack).flatMap((seat): R[] => {
      const native = seat.model?.max_context ?? null;
      if (native === null || seat.maxModelLen === null || seat.maxModelLenAuto || seat.maxModelLen >= native || seat.ownerPinned) return [];
      const atMax = requiredAt(seat, native, round);
      if (atMax === null) return [];
      let spareAfter = Number.POSITIVE_INFINITY;
      let kvToday: number;
      if (seat.pinned !== null) {
        // A pinned seat grows its pin: every one of its cards must keep its reserve after.
        kvToday = seat.pinned;
        const grow = Math.max(0, atMax - seat.pinned);
        for (const index of seat.cards) {
          const u = usageOfCard(usages, seat.host, index);
          if (!u) return [];
          spareAfter = Math.min(spareAfter, u.spare_bytes - grow);
          // The grown pin must still let every neighbour boot last (kv/boot-check), or the advice trades
          // this notice for an error there.
          if (grow > 0 && blocksNeighbourBoot(u, seat.name, grow, ctx.policy.vllm.context_overhead_bytes)) return [];
        }
      } else {
        // An unpinned seat's footprint does not change; the profiler's estimate must hold the maximum.
        if (!seat.estimate || seat.estimate.bytes < atMax) return [];
        kvToday = seat.estimate.bytes;
        for (const index of seat.cards) {
          const u = usageOfCard(usages, seat.host, index);
          if (!u) return [];
          spareAfter = Math.min(spareAfter, u.spare_bytes);
        }
      }
      if (!Number.isFinite(spareAfter) || spareAfter < 0) return [];
      // The settings in the file's own spelling (and the env file's copy a deploy file overrides). As
      // ESLint's suggestions, not fixes: `check --fix` does not raise a context on its own.
      const suggestions = [
        settingFix(ctx.pack, seat.service, "max_model_len", native),
        seat.pinned !== null && atMax > seat.pinned ? settingFix(ctx.pack, seat.service, "kv_pin", atMax) : null,
      ];
      if (suggestions.some((f) => f === null)) return [];
      return [
        {
          message: "room" as const,
          service: seat.name,
          ...placeOf(seat, "max_model_len"),
          data: {
            ...kvData(seat),
            name: seat.name,
            native_max: native,
            kv_bytes: kvToday,
            required_bytes_at_max: atMax,
            card_spare_after_bytes: spareAfter,
            suggestions: suggestions.filter((f): f is ValueFix => f !== null),
          },
        },
      ];
    });
  },
});
