// observed.yaml as `kvgate observe --write` writes it; its schema and reader are src/parse/observed.ts
// (the fleet loader reads it for gpu/plateau, a layer below the views).
import { size } from "../kv/format.js";
import type { CardObservation } from "./cards.js";

export { readObservedFile } from "../parse/observed.js";

const q = (s: string): string => JSON.stringify(s);

export function writeObservedFile(cards: CardObservation[], sources: string[]): string {
  const from = cards.map((c) => c.from).sort()[0] ?? new Date(0).toISOString();
  const until =
    cards
      .map((c) => c.until)
      .sort()
      .slice(-1)[0] ?? from;
  const lines = [
    "# GPU memory at plateau, per card: written by `kvgate observe --write` from monitoring.",
    "# `kvgate check` (gpu/plateau) reads it when kvgate.yaml says `observed: <this file>`: a change may add",
    "# to a card only what its plateau free memory holds above the reserve. Re-observe after a layout",
    "# change: a plateau describes the layout it was measured under (predicted_used_bytes records it).",
    "version: 1",
    `from: ${q(from)}`,
    `until: ${q(until)}`,
    "sources:",
    ...sources.map((s) => `  - ${q(s)}`),
    cards.length === 0 ? "cards: []" : "cards:",
  ];
  for (const c of cards) {
    lines.push(`  - host: ${q(c.host)}`);
    lines.push(`    index: ${c.index}`);
    lines.push(`    plateau_free_bytes: ${c.plateau_free_bytes}   # ${size(c.plateau_free_bytes)}`);
    lines.push(`    plateau_at: ${q(c.plateau_at)}`);
    lines.push(
      `    boot_free_bytes: ${c.boot_free_bytes ?? "null"}${c.boot_free_bytes === null ? "" : `   # ${size(c.boot_free_bytes)} 10 minutes after that boot`}`,
    );
    lines.push(`    creep_bytes: ${c.creep_bytes ?? "null"}${c.creep_bytes === null ? "" : `   # ${size(c.creep_bytes)}`}`);
    lines.push(`    total_bytes: ${c.total_bytes}`);
    lines.push(`    reserve_bytes: ${c.reserve_bytes ?? "null"}`);
    lines.push(`    predicted_used_bytes: ${c.predicted_used_bytes ?? "null"}`);
    lines.push(`    boots: ${c.boots.length}`);
    lines.push(`    samples: ${c.samples}`);
    lines.push(`    last_boot_hours: ${c.last_boot_hours}`);
  }
  return lines.join("\n") + "\n";
}
