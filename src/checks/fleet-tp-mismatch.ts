// fleet/tp-mismatch: a vLLM seat takes one card per rank, TP × PP of them (each pipeline stage holds
// its layers on TP cards); a GPU list of another length means ranks without a card, or cards the card
// fit counts that the seat never uses. The message names the keys the file uses (CUDA_VISIBLE_DEVICES,
// --tensor-parallel-size).
import { tpNeedsCards } from "../model/engine.js";
import { defineCheck, type Report } from "./define.js";
import { showFix } from "../model/value-fix.js";

function ppOf(s: { settings: Record<string, { value: unknown } | undefined> }): number {
  const v = s.settings.pp?.value;
  return typeof v === "number" && Number.isSafeInteger(v) && v > 0 ? v : 1;
}

type Keys = { gpu_key?: string; tp_key?: string };

const messages = {
  mismatch: (d: { service: string; tp: number; gpus: string; count: number } & Keys) => {
    const gpu = d.gpu_key ?? "GPU";
    const tp = d.tp_key ?? "TP";
    return (
      `${d.service}: ${showFix({ key: tp, value: String(d.tp) })} needs ` +
      `${d.tp} cards, but ${gpu} lists ${d.count} (${d.gpus}); list ${d.tp} ` +
      `cards in ${gpu}, or set ${showFix({ key: tp, value: String(d.count) })}`
    );
  },
  pipeline: (d: { service: string; tp: number; pp: number; cards: number; gpus: string; count: number } & Keys) =>
    `${d.service}: TP=${d.tp} × PP=${d.pp} needs ${d.cards} cards, but ${d.gpu_key ?? "GPU"} ` +
    `lists ${d.count} (${d.gpus}); list ${d.cards} cards in ${d.gpu_key ?? "GPU"}`,
};

export const fleetTpMismatch = defineCheck({
  id: "fleet/tp-mismatch",
  severity: "error",
  description:
    "A vLLM seat's GPU list and its TP × PP size disagree: each rank needs a card, and the card fit would count only the cards listed.",
  messages,
  run(ctx) {
    return ctx.after.services.flatMap((s): Report<typeof messages>[] => {
      if (!tpNeedsCards(ctx.pack, s) || s.gpus.length === 0) return [];
      const pp = ppOf(s);
      const cards = s.tp * pp;
      if (s.gpus.length === cards) return [];
      const at = { file: s.origins.gpus?.file ?? s.file, line: s.origins.gpus?.line ?? null, service: s.name };
      const keys = { gpu_key: s.origins.gpus?.name ?? "GPU", tp_key: s.origins.tp?.name ?? "TP" };
      const data = { service: s.name, tp: s.tp, pp, cards, gpus: s.gpus.join(","), count: s.gpus.length, ...keys };
      return [{ message: pp > 1 ? "pipeline" : "mismatch", data, ...at }];
    });
  },
});
