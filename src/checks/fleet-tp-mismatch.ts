import { tpNeedsCards } from "../model/engine.js";
import { defineCheck, type Report } from "./define.js";
import { showFix } from "../fix/types.js";

export const fleetTpMismatch = defineCheck({
  id: "fleet/tp-mismatch",
  severity: "error",
  description: "A vLLM seat's GPU list and its tensor-parallel size disagree: each of the TP ranks needs a card, and the card fit would count only the cards listed.",
  messages: {
    mismatch: (d: { service: string; tp: number; gpus: string; count: number; gpu_key?: string; tp_key?: string }) => {
      const gpu = d.gpu_key ?? "GPU";
      const tp = d.tp_key ?? "TP";
      return `${d.service}: ${showFix({ key: tp, value: String(d.tp) })} needs ${d.tp} cards, but ${gpu} lists ${d.count} (${d.gpus}); list ${d.tp} cards in ${gpu}, or set ${showFix({ key: tp, value: String(d.count) })}`;
    },
  },
  run(ctx) {
    return ctx.after.services
      .filter((s) => tpNeedsCards(ctx.pack, s) && s.gpus.length > 0 && s.gpus.length !== s.tp)
      .map((s): Report => ({
        message: "mismatch",
        data: { service: s.name, tp: s.tp, gpus: s.gpus.join(","), count: s.gpus.length, gpu_key: s.origins.gpus?.name ?? "GPU", tp_key: s.origins.tp?.name ?? "TP" },
        file: s.origins.gpus?.file ?? s.file,
        line: s.origins.gpus?.line ?? null,
        service: s.name,
      }));
  },
});
