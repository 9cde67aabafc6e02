// fleet/unsized: a pass must mean every seat was sized and fits. A seat whose card memory, model facts
// or settings kvgate cannot determine would otherwise be checked by nothing (gpu/fits skips a card it
// does not know, kv/covers-context a seat without an estimate) and the verdict would say PASS over it.
// What another error already refuses (an unknown model, a host or card missing from the inventory, an
// engine kvgate cannot name) is left to that rule; this one names the rest and the line to add.
import { defineCheck, type Report } from "./define.js";
import { fleetCoverage } from "../kv/coverage.js";

const messages = {
  unsized: (d: { name: string; missing: string[] }) => `${d.name}: not sized, so the gate cannot say it fits: ${d.missing.join("; ")}`,
};

export const fleetUnsized = defineCheck({
  id: "fleet/unsized",
  severity: "error",
  description:
    "A seat whose card (inventory), model facts (weights) or settings (a value a deploy " +
    "file writes through a variable kvgate cannot read) cannot be determined, or a radiance " +
    "endpoint without its ledger facts: it is refused until the missing fact is added.",
  messages,
  run(ctx) {
    return fleetCoverage(ctx.after, ctx.policy, ctx.pack).seats.flatMap((seat): Report<typeof messages>[] => {
      const own = seat.missing.filter((m) => m.by === "fleet/unsized");
      if (own.length === 0) return [];
      return [
        {
          message: "unsized",
          service: seat.name,
          ...seat.at,
          key: own.map((m) => m.what).join(","),
          data: { name: seat.name, missing: own.map((m) => m.detail), what: own.map((m) => m.what) },
        },
      ];
    });
  },
});
