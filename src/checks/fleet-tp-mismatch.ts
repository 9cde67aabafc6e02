import { tpNeedsCards } from "../model/engine.js";
import { defineCheck, type Report } from "./define.js";

export const fleetTpMismatch = defineCheck({
  id: "fleet/tp-mismatch",
  severity: "error",
  description: "A vLLM seat's GPU list and its tensor-parallel size disagree: each of the TP ranks needs a card, and the card fit would count only the cards listed.",
  messages: {
    mismatch: (d: { service: string; tp: number; gpus: string; count: number }) =>
      `${d.service}: TP=${d.tp} needs ${d.tp} cards, but GPU lists ${d.count} (${d.gpus}); list ${d.tp} cards in GPU, or set TP=${d.count}`,
  },
  run(ctx) {
    return ctx.after.services
      .filter((s) => tpNeedsCards(ctx.pack, s) && s.gpus.length > 0 && s.gpus.length !== s.tp)
      .map((s): Report => ({
        message: "mismatch",
        data: { service: s.name, tp: s.tp, gpus: s.gpus.join(","), count: s.gpus.length },
        file: s.origins.gpus?.file ?? s.file,
        line: s.origins.gpus?.line ?? null,
        service: s.name,
      }));
  },
});
