// `kvgate observe` as text: per card, the plateau against the reserve and the prediction, then each boot
// once (the one that reached the plateau marked); per vLLM seat, its KV use and preemptions. Times UTC.
import { formatInt, size } from "../kv/format.js";
import { COLORS, PLAIN } from "../report/color.js";
import type { CardObservation } from "./cards.js";
import type { SeatObservation } from "./seats.js";

const t = (iso: string): string => iso.slice(0, 16).replace("T", " ");

export interface ObserveReport {
  tool: "kvgate";
  version: string;
  /** Every time in this report is UTC (ISO 8601 with Z). */
  times: "UTC";
  sources: { file: string; format: string }[];
  cards: CardObservation[];
  seats: SeatObservation[];
  /** Readings skipped: all are counted, the first ones listed with file and line. */
  problem_count: number;
  problems: { file: string; line: number | null; reason: string }[];
  notes: string[];
}

function card(c: CardObservation, p: typeof COLORS): string[] {
  const out: string[] = [];
  const below = c.plateau_margin_bytes !== null && c.plateau_margin_bytes < 0;
  out.push(
    `${p.bold(`${c.host} GPU ${c.index}`)}: ${formatInt(c.samples)} samples, ${t(c.from)} ` +
      `→ ${t(c.until)} UTC, ${c.boots.length} boot${c.boots.length === 1 ? "" : "s"}`,
  );
  const plateau = `plateau ${size(c.plateau_free_bytes)} free (${t(c.plateau_at)} UTC, boot ${c.plateau_boot})`;
  const vs =
    c.reserve_bytes === null
      ? "no reserve in kvgate.yaml"
      : below
        ? p.red(`${size(-(c.plateau_margin_bytes as number))} into the ${size(c.reserve_bytes)} reserve`)
        : p.green(`${size(c.plateau_margin_bytes as number)} above the ${size(c.reserve_bytes)} reserve`);
  out.push(`  ${plateau}: ${vs}`);
  if (c.predicted_used_bytes !== null) {
    out.push(
      `  kvgate predicts ${size(c.predicted_used_bytes)} used ` +
        `(${size(c.predicted_free_bytes ?? 0)} free, spare ${size(c.predicted_spare_bytes ?? 0)} ` +
        `over the reserve); at plateau ${size(Math.abs(c.unexplained_bytes ?? 0))} ` +
        `${(c.unexplained_bytes ?? 0) >= 0 ? "more" : "less"} was in use`,
    );
  }
  out.push("  boots:");
  c.boots.forEach((b, i) => {
    const settled =
      b.boot_free_bytes === null
        ? `shorter than 10 minutes, least free ${size(b.plateau_free_bytes)}`
        : `${size(b.boot_free_bytes)} free at +10 min → plateau ${size(b.plateau_free_bytes)} (creep ${size(b.creep_bytes ?? 0)})`;
    const mark = i + 1 === c.plateau_boot && c.boots.length > 1 ? "  ← the card's plateau" : "";
    out.push(`    ${i + 1}  ${t(b.start)} → ${t(b.end)}: ${settled}${mark}`);
  });
  for (const n of c.notes) out.push(`  ${p.dim(`note: ${n}`)}`);
  return out;
}

function seat(s: SeatObservation, p: typeof COLORS): string[] {
  const out = [
    `${p.bold(s.name)}${s.service === null ? "" : " (vLLM)"}: ${formatInt(s.samples)} samples of ${s.series} engine series, ${t(s.from)} → ${t(s.until)} UTC`,
  ];
  if (s.peak_kv_usage !== null) {
    const bytes = s.peak_kv_bytes === null ? "" : ` (${size(s.peak_kv_bytes)} of its ${size(s.kv_bytes ?? 0)} KV)`;
    out.push(`  peak KV use ${(s.peak_kv_usage * 100).toFixed(1)}%${bytes} at ${t(s.peak_kv_at ?? s.from)} UTC`);
  }
  if (s.peak_running !== null || s.peak_waiting !== null)
    out.push(`  at most ${formatInt(s.peak_running ?? 0)} requests running, ${formatInt(s.peak_waiting ?? 0)} waiting`);
  if (s.preemptions === 0) out.push(`  ${p.green("no preemptions")}`);
  else {
    out.push(
      `  ${p.yellow(`${formatInt(s.preemptions)} preemption${s.preemptions === 1 ? "" : "s"}`)} ` +
        `in ${s.preemption_windows.length} ` +
        `window${s.preemption_windows.length === 1 ? "" : "s"}: its KV was too small for its traffic then`,
    );
    for (const w of s.preemption_windows)
      out.push(`    ${w.from === null ? "since the engine started" : t(w.from)} → ${t(w.until)} UTC: ${formatInt(w.preemptions)}`);
  }
  for (const n of s.notes) out.push(`  ${p.dim(`note: ${n}`)}`);
  return out;
}

export function renderObserve(r: ObserveReport, opts: { color?: boolean } = {}): string {
  const p = opts.color ? COLORS : PLAIN;
  const out: string[] = [`kvgate observe: ${r.sources.map((s) => `${s.file} (${s.format})`).join(", ")}; times UTC`, ""];
  for (const c of r.cards) out.push(...card(c, p), "");
  if (r.seats.length > 0) {
    out.push("vLLM seats, from the engines' own metrics:", "");
    for (const s of r.seats) out.push(...seat(s, p), "");
  }
  for (const n of r.notes) out.push(p.dim(`note: ${n}`));
  if (r.problem_count > 0) {
    out.push(p.yellow(`${formatInt(r.problem_count)} reading${r.problem_count === 1 ? " was" : "s were"} skipped:`));
    for (const x of r.problems.slice(0, 20)) out.push(`  ${x.file}${x.line === null ? "" : `:${x.line}`}: ${x.reason}`);
    if (r.problem_count > 20) out.push(`  ... and ${formatInt(r.problem_count - 20)} more`);
  }
  return out.join("\n") + "\n";
}
