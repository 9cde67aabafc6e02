// kv/oversized: a pin a whole rounding step (or more) above the requirement holds memory the card's
// other seats could use. Owner-pinned seats are the owner's number and are not second-guessed.
import { defineCheck } from "./define.js";
import { kvData, pinFix, placeOf, setPin, vllmSeats } from "../kv/seat.js";
import { size } from "../kv/format.js";

export const kvOversized = defineCheck({
  id: "kv/oversized",
  severity: "notice",
  description: "A vLLM seat's KV pin is at least one kv.round above what its context requires.",
  messages: {
    oversized: (d: { name: string; pinned_bytes: number; required_bytes: number; release_bytes: number; set: string }) =>
      `${d.name}: KV pin ${size(d.pinned_bytes)} ≥ required ${size(d.required_bytes)} ` +
      `+ one rounding step: ${size(d.release_bytes)} could be released; set ${d.set}`,
  },
  run(ctx) {
    const round = ctx.policy.kv.round_bytes;
    return vllmSeats(ctx.after, ctx.policy, ctx.pack).flatMap((seat) => {
      if (seat.ownerPinned || seat.pinned === null || seat.required === null || seat.pinned < seat.required + round) return [];
      return [
        {
          message: "oversized" as const,
          service: seat.name,
          ...placeOf(seat, "kv_pin"),
          data: {
            ...kvData(seat),
            name: seat.name,
            release_bytes: seat.pinned - seat.required,
            set: setPin(seat, seat.required, ctx.pack),
            fix: pinFix(seat, seat.required, ctx.pack),
          },
        },
      ];
    });
  },
});
