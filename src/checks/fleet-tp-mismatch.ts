// fleet/tp-mismatch: a vLLM seat takes one card per rank, TP × PP of them (each pipeline stage holds
// its layers on TP cards); a GPU list of another length means ranks without a card, or cards the card
// fit counts that the seat never uses.
import { tpNeedsCards } from "../model/engine.js";
import { defineCheck, type Report } from "./define.js";

function ppOf(s: { settings: Record<string, { value: unknown } | undefined> }): number {
  const v = s.settings.pp?.value;
  return typeof v === "number" && Number.isSafeInteger(v) && v > 0 ? v : 1;
}

export const fleetTpMismatch = defineCheck({
  id: "fleet/tp-mismatch",
  severity: "error",
  description: "A vLLM seat's GPU list and its parallel sizes disagree: each of the TP × PP ranks needs a card, and the card fit would count only the cards listed.",
  messages: {
    mismatch: (d: { service: string; tp: number; gpus: string; count: number }) =>
      `${d.service}: TP=${d.tp} needs ${d.tp} cards, but GPU lists ${d.count} (${d.gpus}); list ${d.tp} cards in GPU, or set TP=${d.count}`,
    pipeline: (d: { service: string; tp: number; pp: number; cards: number; gpus: string; count: number }) =>
      `${d.service}: TP=${d.tp} × PP=${d.pp} needs ${d.cards} cards, but GPU lists ${d.count} (${d.gpus}); list ${d.cards} cards in GPU`,
  },
  run(ctx) {
    return ctx.after.services.flatMap((s): Report[] => {
      if (!tpNeedsCards(ctx.pack, s) || s.gpus.length === 0) return [];
      const pp = ppOf(s);
      const cards = s.tp * pp;
      if (s.gpus.length === cards) return [];
      const at = { file: s.origins.gpus?.file ?? s.file, line: s.origins.gpus?.line ?? null, service: s.name };
      const data = { service: s.name, tp: s.tp, pp, cards, gpus: s.gpus.join(","), count: s.gpus.length };
      return [{ message: pp > 1 ? "pipeline" : "mismatch", data, ...at }];
    });
  },
});
