// `kvgate usage` as text: one block per service, the numbers an operator sizes a seat from, the evidence
// behind each recommendation (or why there is none), and what the engine's own metrics said. Times UTC.
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

const span = (h: number): string => (h >= 48 ? `${(h / 24).toFixed(1)} days` : `${h.toFixed(1)} h`);

function service(s: ServiceUsage, c: Paint): string[] {
  const pad = (label: string): string => `  ${label.padEnd(19)} `;
  const when =
    s.first_start === null || s.last_start === null ? "" : `, ${day(s.first_start)} → ${day(s.last_start)} UTC (${span(s.span_hours)})`;
  const out = [`${c.bold(s.name)}${s.engine ? ` (${s.engine})` : ""}: ${formatInt(s.calls)} calls${when}`];
  const not: string[] = [];
  if (s.failed > 0) not.push(`${formatInt(s.failed)} failed`);
  if (s.cache_hits > 0) not.push(`${formatInt(s.cache_hits)} cache hit${s.cache_hits === 1 ? "" : "s"}`);
  if (not.length > 0) out.push(`${pad("not calls")}${not.join(", ")} (the engine served neither: not counted below)`);
  if (s.context_errors.count > 0) {
    const ce = s.context_errors;
    out.push(
      `${pad("context errors")}${c.yellow(`${formatInt(ce.count)} refused for context length`)}${ce.largest_request_tokens === null ? "" : `, the largest asking ${formatInt(ce.largest_request_tokens)} tokens${ce.limit_tokens === null ? "" : ` of ${formatInt(ce.limit_tokens)}`}`}: ` +
        `max_model_len is too small for them`,
    );
  }
  if (s.calls > 0) {
    out.push(`${pad("prompt tokens")}${q(s.prompt_tokens)}`);
    out.push(`${pad("completion tokens")}${q(s.completion_tokens)}`);
    if (s.cap_in_force && s.peak_inflight_tokens_without_runaways === s.peak_inflight_tokens) {
      out.push(
        `${pad("peak in flight")}${formatInt(s.peak_inflight_tokens)} ` +
          `tokens${s.runaway_count > 0 ? ", the replies that stopped at the cap included (it cuts nothing further)" : ""}`,
      );
    } else if (s.cap_in_force) {
      out.push(
        `${pad("peak in flight")}${formatInt(s.peak_inflight_tokens_without_runaways)} tokens ` +
          `without the replies above the cap (${formatInt(s.peak_inflight_tokens)} with them)`,
      );
    } else {
      const withThem = s.runaway_count > 0 ? ` (${formatInt(s.peak_inflight_tokens)} with the runaways)` : "";
      out.push(
        `${pad("peak in flight")}${formatInt(s.peak_inflight_tokens_without_runaways)} tokens${s.runaway_count > 0 ? " without runaways" : ""}${withThem}`,
      );
    }
  }
  for (const d of s.deployments)
    out.push(
      `${pad("  deployment")}${d.deployment || "(no api_base)"}: ${formatInt(d.calls)} calls, peak ${formatInt(d.peak_inflight_tokens)} tokens`,
    );
  if (s.calls > 0) {
    if (s.runaway_count === 0) {
      out.push(`${pad("runaways")}none (no reply reached ${formatInt(s.runaway_threshold_tokens)} tokens)`);
    } else {
      const largest = s.runaways[0]?.completion_tokens ?? 0;
      const what = `≥ ${formatInt(s.runaway_threshold_tokens)} tokens`;
      out.push(
        `${pad("runaways")}${c.yellow(`${formatInt(s.runaway_count)} ${s.runaway_count === 1 ? "reply" : "replies"} ${what}`)}, ` +
          `up to ${formatInt(largest)}; by key:`,
      );
      for (const k of s.runaway_keys) out.push(`${pad("")}  ${who(k)}: ${formatInt(k.count)}, up to ${formatInt(k.max_completion_tokens)}`);
    }
  }
  const e = s.engine_evidence;
  if (e !== null) {
    const peak = e.peak_kv_usage === null ? "" : `, KV up to ${(e.peak_kv_usage * 100).toFixed(1)}% full`;
    out.push(
      `${pad("engine metrics")}${e.preemptions === 0 ? c.green("no preemptions") : c.yellow(`${formatInt(e.preemptions)} preemption${e.preemptions === 1 ? "" : "s"} in ${e.windows.length} window${e.windows.length === 1 ? "" : "s"}`)}${peak}${e.kv_bytes === null ? "" : ` at KV ${size(e.kv_bytes)}`} (${e.source})`,
    );
  }
  const r = s.recommended;
  if (r === null) {
    out.push(
      `${pad("recommended")}${
        s.advice_withheld !== null
          ? c.yellow(`nothing yet: ${s.advice_withheld}`)
          : s.engine === null
            ? "no service of that name in the working tree (name it, or list this model under usage.models)"
            : s.engine === "vllm"
              ? "nothing: no call to size it from"
              : `nothing: ${s.engine} is not sized by the vLLM KV rule`
      }`,
    );
    return out;
  }
  out.push(
    `${pad("recommended")}output cap ${formatInt(r.output_cap)} ` +
      `(${r.output_cap_source === "seat" ? "the seat's" : "above every reply that was not a runaway"})`,
  );
  out.push(
    `${pad("")}max_model_len ${formatInt(r.max_model_len)} (largest prompt ${formatInt(s.prompt_tokens.max)} + cap ${formatInt(r.output_cap)})`,
  );
  if (r.kv_bytes !== null && r.bytes_per_token !== null) {
    if (r.kv_for_preemptions_bytes !== null && r.kv_bytes === r.kv_for_preemptions_bytes) {
      out.push(`${pad("")}KV ${size(r.kv_bytes)}: one kv.round above the ${size(r.kv_bytes - r.round_bytes)} the engine preempted at`);
    } else {
      const basis = r.kv_bytes === r.kv_for_context_bytes ? r.max_model_len : s.peak_inflight_tokens_without_runaways;
      out.push(
        `${pad("")}KV ${size(r.kv_bytes)} = ceil(${r.factor} × ${formatInt(basis)} ` +
          `tokens × ${size(r.bytes_per_token)} / ${size(r.round_bytes)}) × ${size(r.round_bytes)}; ` +
          `the peak in flight alone needs ${size(r.kv_for_peak_bytes ?? 0)}`,
      );
    }
  }
  const ev = r.evidence;
  out.push(
    `${pad("evidence")}${formatInt(ev.requests)} requests over ` +
      `${span(ev.span_hours)}; max_model_len from ${ev.max_model_len_from}; ` +
      `cap from ${ev.output_cap_from}; KV from ${ev.kv_from}`,
  );
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
  const window = r.since || r.until ? `, ${r.since ? day(r.since) : "…"} → ${r.until ? day(r.until) : "…"} UTC` : "";
  const more = [
    r.rows.failed > 0 ? `${formatInt(r.rows.failed)} failed` : "",
    r.rows.cache_hits > 0 ? `${formatInt(r.rows.cache_hits)} cache hits` : "",
  ]
    .filter(Boolean)
    .map((x) => `, ${x}`)
    .join("");
  const lines = [
    `kvgate usage: ${src}${window}: ${formatInt(r.rows.read)} rows, ` +
      `${formatInt(r.rows.used)} counted${more}, ${formatInt(r.rows.skipped)} skipped, ` +
      `${formatInt(r.rows.outside_window)} outside the window; times UTC`,
    "",
  ];
  for (const s of r.services) lines.push(...service(s, c), "");
  if (r.services.length === 0) lines.push("no rows in the window", "");
  if (r.rows.skipped > 0) {
    lines.push(
      c.yellow(
        `${formatInt(r.rows.skipped)} row${r.rows.skipped === 1 ? " was" : "s were"} ` +
          `skipped (not counted ` +
          `anywhere)${r.rows.skipped > r.problems.length ? `; the first ${r.problems.length}` : ""}:`,
      ),
    );
    for (const p of r.problems) lines.push(`  ${p.file}${p.line === null ? "" : `:${p.line}`}: ${p.reason}`);
    lines.push("");
  }
  return lines.join("\n");
}
