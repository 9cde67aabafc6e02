// `kvgate observe` as text: per card, the plateau against the reserve and the prediction, then the boots.
import { size } from "../kv/format.js";
import { COLORS, PLAIN } from "../report/color.js";
import type { CardObservation } from "./cards.js";

const t = (iso: string): string => iso.slice(0, 16).replace("T", " ");

export interface ObserveReport {
  tool: "kvgate";
  version: string;
  sources: { file: string; format: string }[];
  cards: CardObservation[];
  problems: { file: string; line: number | null; reason: string }[];
  notes: string[];
}

export function renderObserve(r: ObserveReport, opts: { color?: boolean } = {}): string {
  const c = opts.color ? COLORS : PLAIN;
  const out: string[] = [`kvgate observe: ${r.sources.map((s) => `${s.file} (${s.format})`).join(", ")}`, ""];
  for (const card of r.cards) {
    const below = card.plateau_margin_bytes !== null && card.plateau_margin_bytes < 0;
    out.push(
      `${c.bold(`${card.host} GPU ${card.index}`)}: ${card.samples} samples, ${t(card.from)} → ${t(card.until)}, ${card.boots.length} boot${card.boots.length === 1 ? "" : "s"}`,
    );
    const plateau = `plateau ${size(card.plateau_free_bytes)} free (${t(card.plateau_at)})`;
    const vs =
      card.reserve_bytes === null
        ? "no reserve in kvgate.yaml"
        : below
          ? c.red(`${size(-(card.plateau_margin_bytes as number))} into the ${size(card.reserve_bytes)} reserve`)
          : c.green(`${size(card.plateau_margin_bytes as number)} above the ${size(card.reserve_bytes)} reserve`);
    out.push(`  ${plateau}: ${vs}`);
    if (card.boot_free_bytes !== null)
      out.push(`  that boot: ${size(card.boot_free_bytes)} free 10 minutes in, creep ${size(card.creep_bytes ?? 0)}`);
    if (card.predicted_used_bytes !== null) {
      out.push(
        `  kvgate predicts ${size(card.predicted_used_bytes)} used (${size(card.predicted_free_bytes ?? 0)} free, spare ${size(card.predicted_spare_bytes ?? 0)} over the reserve); at plateau ${size(Math.abs(card.unexplained_bytes ?? 0))} ${(card.unexplained_bytes ?? 0) >= 0 ? "more" : "less"} was in use`,
      );
    }
    out.push("  boots:");
    for (const b of card.boots) {
      const settled =
        b.boot_free_bytes === null
          ? "shorter than 10 minutes"
          : `${size(b.boot_free_bytes)} free at +10 min → plateau ${size(b.plateau_free_bytes)} (creep ${size(b.creep_bytes ?? 0)})`;
      out.push(`    ${t(b.start)} → ${t(b.end)}: ${settled}`);
    }
    for (const n of card.notes) out.push(`  ${c.dim(`note: ${n}`)}`);
    out.push("");
  }
  for (const n of r.notes) out.push(c.dim(`note: ${n}`));
  if (r.problems.length > 0) {
    out.push(c.yellow(`${r.problems.length} reading${r.problems.length === 1 ? " was" : "s were"} skipped:`));
    for (const p of r.problems.slice(0, 20)) out.push(`  ${p.file}${p.line === null ? "" : `:${p.line}`}: ${p.reason}`);
    if (r.problems.length > 20) out.push(`  ... and ${r.problems.length - 20} more`);
  }
  return out.join("\n") + "\n";
}
