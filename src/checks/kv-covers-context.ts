// kv/covers-context: a byte pin must hold factor × max context of KV, rounded up. An owner-pinned
// seat (kv.seats.<name>.pinned) is reported exempt, naming the owner: kv/exception holds it instead.
import { defineCheck } from "./define.js";
import { kvData, placeOf, requiredFormula, setPin, vllmSeats } from "../kv/seat.js";
import { size } from "../kv/format.js";

export const kvCoversContext = defineCheck({
  id: "kv/covers-context",
  severity: "error",
  description: "A vLLM seat's KV pin is below factor × max_model_len × bytes per token, rounded up to kv.round.",
  messages: {
    short: (d: { name: string; pinned_bytes: number; required_bytes: number; formula: string; set: string }) =>
      `${d.name}: KV pin ${size(d.pinned_bytes)} < required ${size(d.required_bytes)} = ${d.formula}; set ${d.set}`,
  },
  run(ctx) {
    return vllmSeats(ctx.after, ctx.policy, ctx.pack).flatMap((seat) => {
      if (seat.pinned === null || seat.required === null || seat.pinned >= seat.required) return [];
      const owner = seat.policy?.pinned_bytes !== undefined ? seat.policy : undefined;
      return [{
        message: "short" as const,
        service: seat.name,
        ...placeOf(seat, "kv_pin"),
        data: { ...kvData(seat), name: seat.name, formula: requiredFormula(seat, ctx.policy.kv.round_bytes), set: setPin(seat, seat.required) },
        ...(owner ? { status: "exempt" as const, reason: `owner-pinned by ${owner.by ?? "the seat's owner"} (kv.seats.${seat.name}.pinned)` } : {}),
      }];
    });
  },
});
