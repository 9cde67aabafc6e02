// `kvgate usage` as text: one block per service, the numbers an operator sizes a seat from.
import { formatInt, size } from "../kv/format.js";
import { COLORS, PLAIN, type Paint } from "../report/color.js";
import type { RedactedKey, ServiceUsage, UsageReport } from "./report.js";

const day = (iso: string): string => iso.slice(0, 16).replace("T", " ");

function q(x: { p50: number; p99: number; max: number }): string {
  return `p50 ${formatInt(x.p50)}   p99 ${formatInt(x.p99)}   max ${formatInt(x.max)}`;
}

function who(k: RedactedKey): string {
  if (k.key_fingerprint === "") return "(no key)";
  return `${k.key} ${k.key_fingerprint}${k.key_alias ? ` (${k.key_alias})` : ""}`;
}

function service(s: ServiceUsage, c: Paint): string[] {
  const pad = (label: string): string => `  ${label.padEnd(19)} `;
  const out = [
    `${c.bold(s.name)}${s.engine ? ` (${s.engine})` : ""}: ${formatInt(s.calls)} calls, ${day(s.first_start)} → ${day(s.last_start)}`,
  ];
  out.push(`${pad("prompt tokens")}${q(s.prompt_tokens)}`);
  out.push(`${pad("completion tokens")}${q(s.completion_tokens)}`);
  const withThem = s.runaway_count > 0 ? ` (${formatInt(s.peak_inflight_tokens)} with the runaways)` : "";
  out.push(
    `${pad("peak in flight")}${formatInt(s.peak_inflight_tokens_without_runaways)} tokens${s.runaway_count > 0 ? " without runaways" : ""}${withThem}`,
  );
  if (s.runaway_count === 0) {
    out.push(`${pad("runaways")}none (no reply reached ${formatInt(s.runaway_threshold_tokens)} tokens)`);
  } else {
    const largest = s.runaways[0]?.completion_tokens ?? 0;
    out.push(
      `${pad("runaways")}${c.yellow(`${formatInt(s.runaway_count)} ${s.runaway_count === 1 ? "reply" : "replies"} ≥ ${formatInt(s.runaway_threshold_tokens)} tokens`)}, up to ${formatInt(largest)}; by key:`,
    );
    for (const k of s.runaway_keys) out.push(`${pad("")}  ${who(k)}: ${formatInt(k.count)}, up to ${formatInt(k.max_completion_tokens)}`);
  }
  const r = s.recommended;
  if (r === null) {
    out.push(
      `${pad("recommended")}${s.engine === null ? "no service of that name in the working tree (name it, or list this model under usage.models)" : `nothing: ${s.engine} is not sized by the vLLM KV rule`}`,
    );
    return out;
  }
  out.push(
    `${pad("recommended")}output cap ${formatInt(r.output_cap)} (${r.output_cap_source === "seat" ? "the seat's" : "above every reply that was not a runaway"})`,
  );
  out.push(
    `${pad("")}max_model_len ${formatInt(r.max_model_len)} (largest prompt ${formatInt(s.prompt_tokens.max)} + cap ${formatInt(r.output_cap)})`,
  );
  if (r.kv_bytes !== null && r.bytes_per_token !== null) {
    const basis = r.kv_bytes === r.kv_for_context_bytes ? r.max_model_len : s.peak_inflight_tokens_without_runaways;
    out.push(
      `${pad("")}KV ${size(r.kv_bytes)} = ceil(${r.factor} × ${formatInt(basis)} tokens × ${size(r.bytes_per_token)} / ${size(r.round_bytes)}) × ${size(r.round_bytes)}; the peak in flight alone needs ${size(r.kv_for_peak_bytes ?? 0)}`,
    );
  }
  const cur = s.current;
  if (cur) {
    const fmt = (v: number | null, f: (n: number) => string): string => (v === null ? "unset" : f(v));
    out.push(
      `${pad("today")}max_model_len ${fmt(cur.max_model_len, formatInt)}, KV ${fmt(cur.kv_pinned_bytes, size)}, output cap ${fmt(cur.output_cap, formatInt)}`,
    );
  }
  for (const n of r.notes) out.push(`${pad("")}${c.dim(`note: ${n}`)}`);
  return out;
}

export function renderUsage(r: UsageReport, opts: { color?: boolean } = {}): string {
  const c = opts.color ? COLORS : PLAIN;
  const src = "files" in r.source ? `${r.source.files.length} file${r.source.files.length === 1 ? "" : "s"}` : r.source.database;
  const window = r.since || r.until ? `, ${r.since ? day(r.since) : "…"} → ${r.until ? day(r.until) : "…"}` : "";
  const lines = [
    `kvgate usage: ${src}${window}: ${formatInt(r.rows.read)} rows, ${formatInt(r.rows.used)} counted, ${formatInt(r.rows.skipped)} skipped, ${formatInt(r.rows.outside_window)} outside the window`,
    "",
  ];
  for (const s of r.services) lines.push(...service(s, c), "");
  if (r.services.length === 0) lines.push("no rows in the window", "");
  if (r.rows.skipped > 0) {
    lines.push(
      c.yellow(
        `${formatInt(r.rows.skipped)} row${r.rows.skipped === 1 ? " was" : "s were"} skipped (not counted anywhere)${r.rows.skipped > r.problems.length ? `; the first ${r.problems.length}` : ""}:`,
      ),
    );
    for (const p of r.problems) lines.push(`  ${p.file}${p.line === null ? "" : `:${p.line}`}: ${p.reason}`);
    lines.push("");
  }
  return lines.join("\n");
}
