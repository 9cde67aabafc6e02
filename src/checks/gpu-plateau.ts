// gpu/plateau (docs/usage-observe.md): a card's observed plateau free memory (the committed file
// `kvgate observe --write` made), less what the change adds to the card, must stay at or above the
// card's reserve. A card creeps for a day or two after each boot: headroom counts at plateau, not at
// boot. The observed file is an input like any other: missing, malformed or naming a card the fleet
// does not have is a finding at its file and line, never a silent pass.
import { defineCheck, type Report } from "./define.js";
import { cardUsage, type CardUsage } from "../kv/card-usage.js";
import { addedToCard, plateauFinding } from "../kv/plateau.js";

type Over = {
  host: string;
  gpu: number;
  plateau_free_bytes: number;
  added_bytes: number;
  reserve_bytes: number;
  free_after_bytes: number;
  short_bytes: number;
  observed_at: string | null;
};

const messages = {
  over: (d: Over) =>
    plateauFinding({
      host: d.host,
      index: d.gpu,
      plateauFreeBytes: d.plateau_free_bytes,
      reserveBytes: d.reserve_bytes,
      addedBytes: d.added_bytes,
      observedAt: d.observed_at,
    })?.message ?? "",
  missing: (d: { file: string }) =>
    `${d.file} is not in the repository, but kvgate.yaml names it ` +
    `(observed:); commit the file \`kvgate observe --metrics … ` +
    `--write ${d.file}\` writes, or remove observed: from kvgate.yaml`,
  malformed: (d: { file: string; problem: string }) =>
    `${d.problem}; gpu/plateau cannot check the cards until it reads: write it again with \`kvgate observe --metrics … --write ${d.file}\``,
  "unknown-card": (d: { file: string; host: string; gpu: number }) =>
    `${d.file} observes ${d.host} GPU ${d.gpu}, which kvgate.yaml's fleet.hosts does not list: add the card to fleet.hosts, or observe again without it`,
};

const key = (host: string, index: number): string => `${host}\u0000${index}`;

export const gpuPlateau = defineCheck({
  id: "gpu/plateau",
  severity: "error",
  description: "A card's observed plateau free memory, less what the change adds to it, is below its reserve.",
  messages,
  run(ctx) {
    const o = ctx.after.observed;
    if (!o) return [];
    if (o.read === null) return [{ message: "missing", data: { file: o.file }, file: null, line: null, service: null, key: "missing" }];
    if (!o.read.ok) {
      return o.read.problems.map((p) => ({
        message: "malformed" as const,
        data: { file: o.file, problem: p.message },
        file: o.file,
        line: p.line ?? 1,
        service: null,
        key: p.message,
      }));
    }
    const after = new Map(cardUsage(ctx.after, ctx.policy, ctx.pack).map((u) => [key(u.host, u.index), u]));
    const before = ctx.before ? new Map(cardUsage(ctx.before, ctx.policy, ctx.pack).map((u) => [key(u.host, u.index), u])) : null;
    const out: Report<typeof messages>[] = [];
    o.read.value.cards.forEach((card, i) => {
      const line = o.read?.ok ? (o.read.cardLines[i] ?? 1) : 1;
      const now = after.get(key(card.host, card.index));
      if (!now) {
        out.push({
          message: "unknown-card",
          data: { file: o.file, host: card.host, gpu: card.index },
          file: o.file,
          line,
          service: null,
          key: `${card.host}/${card.index}`,
        });
        return;
      }
      const was = before ? (before.get(key(card.host, card.index))?.used_bytes ?? 0) : null;
      const added = addedToCard(now.used_bytes, was, card.predicted_used_bytes ?? null);
      const f = plateauFinding({
        host: card.host,
        index: card.index,
        plateauFreeBytes: card.plateau_free_bytes,
        reserveBytes: now.reserve_bytes,
        addedBytes: added,
        observedAt: card.plateau_at ?? null,
      });
      if (!f) return;
      const where = grownSeat(now, before?.get(key(card.host, card.index)) ?? null) ?? { file: o.file, line };
      out.push({
        message: "over",
        data: { ...f.data, observed_at: card.plateau_at ?? null },
        ...where,
        service: null,
        key: `${card.host}/${card.index}`,
      });
    });
    return out;
  },
});

/** The seat whose footprint on the card the change grew (or that it moved onto the card): where the fix goes. */
function grownSeat(now: CardUsage, was: CardUsage | null): { file: string; line: number } | null {
  if (!was) return null;
  for (const e of now.entries) {
    if (e.kind !== "seat") continue;
    const prev = was.entries.find((x) => x.kind === "seat" && x.name === e.name);
    if (prev && prev.kind === "seat" && prev.footprint_bytes >= e.footprint_bytes) continue;
    const s = e.seat.service;
    const origin = prev ? (s.settings.kv_pin?.origin ?? s.settings.gpu_memory_utilization?.origin) : s.origins.gpus;
    return { file: origin?.file ?? s.file, line: origin?.line ?? 1 };
  }
  return null;
}
