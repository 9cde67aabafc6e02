// kv/covers-context: a byte pin must hold factor × max context of KV, rounded up. An owner-pinned
// seat (kv.seats.<name>.pinned) is reported exempt, naming the owner: kv/exception holds it instead.
// The fix raises the pin, unless that would overfill the card (gpu/fits) or starve a neighbour's boot
// (kv/boot-check): then it lowers the context to what the pin holds.
import { defineCheck } from "./define.js";
import { kvData, pinFix, placeOf, requiredFormula, vllmSeats } from "../kv/seat.js";
import { cardUsage } from "../kv/card-usage.js";
import { compact, formatInt, size } from "../kv/format.js";
import { contextThatFits, pinRaiseFits } from "../fix/kv-room.js";
import { settingFix } from "../fix/setting.js";
import { outputCapOf } from "../kv/yarn.js";
import { showFix, type ValueFix } from "../fix/types.js";

type Data = { name: string; pinned_bytes: number; required_bytes: number; formula: string; fix?: ValueFix; fix_kind: "pin" | "context" | "none" };

const advice = (d: Data): string => {
  if (d.fix_kind === "pin" && d.fix) return `set ${showFix(d.fix)} (${compact(Number(d.fix.value))})`;
  if (d.fix_kind === "context" && d.fix) return `a pin of ${size(d.required_bytes)} would overfill the card, so lower the context: set ${showFix(d.fix)} (${formatInt(Number(d.fix.value))} tokens fit the pin), or free the card first (kvgate plan)`;
  return `a pin of ${size(d.required_bytes)} would overfill the card: free room on the card first (kvgate plan), or lower the context`;
};

export const kvCoversContext = defineCheck({
  id: "kv/covers-context",
  severity: "error",
  description: "A vLLM seat's KV pin is below factor × max_model_len × bytes per token, rounded up to kv.round.",
  messages: {
    short: (d: Data) => `${d.name}: KV pin ${size(d.pinned_bytes)} < required ${size(d.required_bytes)} = ${d.formula}; ${advice(d)}`,
  },
  run(ctx) {
    const usages = cardUsage(ctx.after, ctx.policy, ctx.pack);
    return vllmSeats(ctx.after, ctx.policy, ctx.pack).flatMap((seat) => {
      if (seat.pinned === null || seat.required === null || seat.pinned >= seat.required) return [];
      const owner = seat.policy?.pinned_bytes !== undefined ? seat.policy : undefined;
      let fix: ValueFix | null = null;
      let kind: Data["fix_kind"] = "none";
      if (pinRaiseFits(usages, seat, seat.required)) {
        fix = pinFix(seat, seat.required);
        kind = "pin";
      } else {
        const len = contextThatFits(seat, ctx.policy.kv.round_bytes);
        // Below the output cap, gen/output-cap would refuse the lower context: no single value fixes it then.
        const cap = outputCapOf(seat.service)?.cap;
        fix = len === null || (cap !== undefined && cap > len) ? null : settingFix(ctx.pack, seat.service, "max_model_len", len);
        kind = fix ? "context" : "none";
      }
      return [{
        message: "short" as const,
        service: seat.name,
        ...placeOf(seat, "kv_pin"),
        data: { ...kvData(seat), name: seat.name, formula: requiredFormula(seat, ctx.policy.kv.round_bytes), ...(fix ? { fix } : {}), fix_kind: kind },
        ...(owner ? { status: "exempt" as const, reason: `owner-pinned by ${owner.by ?? "the seat's owner"} (kv.seats.${seat.name}.pinned)` } : {}),
      }];
    });
  },
});
