// observed.yaml as `kvgate observe --write` writes it; its schema and reader are src/parse/observed.ts
// (the fleet loader reads it for gpu/plateau and kv/preempted, a layer below the views).
import { size } from "../kv/format.js";
import { plateauBoot, type CardObservation } from "./cards.js";
import type { SeatObservation } from "./seats.js";

export { readObservedFile } from "../parse/observed.js";

const q = (s: string): string => JSON.stringify(s);

export function writeObservedFile(cards: CardObservation[], sources: string[], seats: SeatObservation[] = []): string {
  const times = [...cards.flatMap((c) => [c.from, c.until]), ...seats.flatMap((s) => [s.from, s.until])].sort();
  const from = times[0] ?? new Date(0).toISOString();
  const until = times[times.length - 1] ?? from;
  const lines = [
    "# GPU memory at plateau per card, and each vLLM seat's own KV evidence: written by `kvgate observe --write`",
    "# from monitoring. `kvgate check` reads it when kvgate.yaml says `observed: <this file>`: gpu/plateau lets a",
    "# change add to a card only what its plateau free memory holds above the reserve; kv/preempted warns about a",
    "# seat that preempted while its KV is not above what it had then. Re-observe after a layout change: a",
    "# plateau describes the layout it was measured under (predicted_used_bytes records it).",
    "version: 1",
    `from: ${q(from)}`,
    `until: ${q(until)}`,
    "sources:",
    ...sources.map((s) => `  - ${q(s)}`),
    cards.length === 0 ? "cards: []" : "cards:",
  ];
  for (const c of cards) {
    const b = plateauBoot(c);
    lines.push(`  - host: ${q(c.host)}`);
    lines.push(`    index: ${c.index}`);
    lines.push(`    plateau_free_bytes: ${c.plateau_free_bytes}   # ${size(c.plateau_free_bytes)}`);
    lines.push(`    plateau_at: ${q(c.plateau_at)}`);
    lines.push(
      `    boot_free_bytes: ${b.boot_free_bytes ?? "null"}${b.boot_free_bytes === null ? "" : `   # ${size(b.boot_free_bytes)} 10 minutes after that boot`}`,
    );
    lines.push(`    creep_bytes: ${b.creep_bytes ?? "null"}${b.creep_bytes === null ? "" : `   # ${size(b.creep_bytes)}`}`);
    lines.push(`    total_bytes: ${c.total_bytes}`);
    lines.push(`    reserve_bytes: ${c.reserve_bytes ?? "null"}`);
    lines.push(`    predicted_used_bytes: ${c.predicted_used_bytes ?? "null"}`);
    lines.push(`    boots: ${c.boots.length}`);
    lines.push(`    samples: ${c.samples}`);
    lines.push(`    last_boot_hours: ${c.last_boot_hours}`);
  }
  if (seats.length > 0) lines.push("seats:");
  for (const s of seats) {
    lines.push(`  - service: ${q(s.name)}`);
    lines.push(
      `    kv_bytes: ${s.kv_bytes ?? "null"}${s.kv_bytes === null ? "" : `   # ${size(s.kv_bytes)}: the seat's KV when observed`}`,
    );
    lines.push(`    peak_kv_usage: ${s.peak_kv_usage ?? "null"}`);
    lines.push(`    preemptions: ${s.preemptions}`);
    lines.push(s.preemption_windows.length === 0 ? "    windows: []" : "    windows:");
    for (const w of s.preemption_windows)
      lines.push(`      - { from: ${w.from === null ? "null" : q(w.from)}, until: ${q(w.until)}, preemptions: ${w.preemptions} }`);
  }
  return lines.join("\n") + "\n";
}
