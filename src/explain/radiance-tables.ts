// The text tables of `kvgate explain <endpoint>` for radiance: every funding term per card and every
// TTM ledger term, before and after the change, and which lever moves what.
import type { CardFunding, Funding } from "../radiance/funding.js";
import type { TtmLedger } from "../radiance/ttm.js";
import { MiB, formatNumber } from "../units/bytes.js";

const n = (v: number, digits = 2): string => formatNumber(v, digits);
const pct = (r: number): string => `${(r * 100).toFixed(1)} %`;

function table(rows: string[][]): string[] {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  return rows.map((r) =>
    r
      .map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0)))
      .join("  ")
      .trimEnd(),
  );
}

function columns(before: unknown): string[] {
  return before ? ["", "before", "after"] : ["", "now"];
}

function row<T>(label: string, before: T | null, after: T, show: (v: T) => string): string[] {
  return before === null ? [label, show(after)] : [label, show(before), show(after)];
}

export interface RenderOptions {
  /** policy.radiance.pool_step_mib, to say the pool raise in steps. */
  pool_step_mib?: number;
}

/** The funding table; `before` null shows one column (a new endpoint, or nothing changed). */
export function renderFunding(before: Funding | null, after: Funding, options: RenderOptions = {}): string {
  const rows: string[][] = [columns(before)];
  const mib = (v: number) => n(v);
  const bytesAsMib = (v: number) => n(v / MiB);
  rows.push(row("GPU_HEADROOM_MIB", before?.inputs.gpu_headroom_mib ?? null, after.inputs.gpu_headroom_mib, mib));
  rows.push(row("HOST_POOL_MIB (per rank)", before?.inputs.host_pool_mib ?? null, after.inputs.host_pool_mib, mib));
  rows.push(row("host room", before?.host_room_mib ?? null, after.host_room_mib, mib));
  rows.push(row("expert floor", before?.expert_floor_mib ?? null, after.expert_floor_mib, mib));
  rows.push(row("kv cap (MiB)", before?.kv_cap_bytes ?? null, after.kv_cap_bytes, bytesAsMib));
  for (const card of after.cards) {
    const was = before?.cards.find((c) => c.index === card.index);
    // A card the before side did not list shows "—" in the before column.
    const cell = (pick: (c: CardFunding) => number): number | null => (before === null ? null : was ? pick(was) : NaN);
    const tag = `card ${card.index}${card.index === after.budget_card ? " (budget)" : ""}`;
    rows.push(
      row(
        `${tag} total`,
        cell((c) => c.card_total_mib),
        card.card_total_mib,
        mib,
      ),
    );
    rows.push(
      row(
        "  capacity",
        cell((c) => c.capacity_mib),
        card.capacity_mib,
        mib,
      ),
    );
    rows.push(
      row(
        "  elastic",
        cell((c) => c.elastic_mib),
        card.elastic_mib,
        mib,
      ),
    );
    rows.push(
      row(
        "  elastic − floor (MiB)",
        cell((c) => c.supply_bytes),
        card.supply_bytes,
        bytesAsMib,
      ),
    );
    rows.push(
      row(
        "  kv (MiB)",
        cell((c) => c.kv_bytes),
        card.kv_bytes,
        bytesAsMib,
      ),
    );
    rows.push(
      row(
        "  tokens",
        cell((c) => c.tokens),
        card.tokens,
        (v) => n(v, 0),
      ),
    );
  }
  rows.push(row("tokens", before?.tokens ?? null, after.tokens, (v) => n(v, 0)));
  rows.push(row("demand (MAX_SEQS × MAX_MODEL_LEN)", before?.demand_tokens ?? null, after.demand_tokens, (v) => n(v, 0)));
  rows.push(row("funded", before?.funded ?? null, after.funded, pct));
  const lines = [
    "funding (radiance, MiB unless said; the smallest card is the budget)",
    ...table(rows).map((l) => "  " + l.replace(/NaN/g, "—")),
  ];
  lines.push("levers:", ...levers(after, options).map((l) => "  " + l));
  return lines.join("\n");
}

function levers(f: Funding, options: RenderOptions): string[] {
  const out: string[] = [];
  const limit = f.underfunded ? `the card limits it, so tokens stay at ${n(f.tokens, 0)}` : "the cache already holds the whole demand";
  out.push(`--max-num-seqs / --max-model-len raise demand only (kv cap), not capacity: ${limit}.`);
  const sat =
    `HOST_POOL_MIB ${n(f.useful_pool_mib)} = plane ${n(f.plane_mib)} + 2 × ` +
    `unit_max ${n(f.unit_max_mib)} + file-tier staging ${n(f.file_tier_staging_mib)}`;
  if (f.pool_still_useful_mib > 0) {
    out.push(
      `--host-pool-mib lowers the expert floor one for one (up to kv ` +
        `cap): ${n(f.pool_still_useful_mib)} MiB more pool is still useful; ` +
        `the floor reaches 0 at ${sat}, after which more pool buys nothing.`,
    );
  } else {
    out.push(`--host-pool-mib buys nothing more: the host already holds the whole plane (the floor is 0 from ${sat}).`);
  }
  if (f.underfunded) {
    const need = f.pool_for_full_funding_mib;
    if (need === null)
      out.push("The pool alone cannot fund the whole demand: lower GPU_HEADROOM_MIB toward the floor, or accept the funded share.");
    else {
      const step = options.pool_step_mib;
      const steps = step
        ? ` (${Math.ceil(need / step)} step${Math.ceil(need / step) === 1 ? "" : "s"} of ${n(step)}: +${n(Math.ceil(need / step) * step)})`
        : "";
      out.push(
        `To fund the whole demand: raise HOST_POOL_MIB by ${n(need)} MiB${steps}, one knob per deploy, and raise TTM_MIN_MIB with it.`,
      );
    }
  }
  out.push("--gpu-headroom-mib: every MiB lowered goes to the cache (48 is the first rung measured decode-neutral).");
  return out;
}

/** The TTM pin ledger, term by term, and the floor it demands. */
export function renderTtm(before: TtmLedger | null, after: TtmLedger): string {
  const rows: string[][] = [columns(before)];
  const mib = (v: number) => n(v);
  const opt = (v: number | null) => (v === null ? "unset" : n(v));
  rows.push(
    row(
      `TP × HOST_POOL_MIB`,
      before ? `${before.tp} × ${n(before.host_pool_mib)}` : null,
      `${after.tp} × ${n(after.host_pool_mib)}`,
      (v) => v,
    ),
  );
  rows.push(row("  = pool", before?.pool_mib ?? null, after.pool_mib, mib));
  rows.push(row("PLE_TABLE_MIB", before?.ple_table_mib ?? null, after.ple_table_mib, mib));
  rows.push(row("PREFIX_CACHE_MIB", before?.prefix_cache_mib ?? null, after.prefix_cache_mib, mib));
  rows.push(row("STATICS_MIB (statics + arena)", before?.statics_mib ?? null, after.statics_mib, mib));
  rows.push(row("checkpoint slots", before ? slotText(before) : null, slotText(after), (v) => v));
  rows.push(row("  × slot_mib = store", before?.checkpoint_store_mib ?? null, after.checkpoint_store_mib, mib));
  rows.push(row("ledger", before?.ledger_mib ?? null, after.ledger_mib, mib));
  rows.push(row("TTM_MIN_MIB needed (ceil)", before?.required_mib ?? null, after.required_mib, mib));
  rows.push(row("TTM_MIN_MIB", before ? before.ttm_min_mib : null, after.ttm_min_mib, opt));
  rows.push(row("TTM_TARGET_MIB", before ? before.ttm_target_mib : null, after.ttm_target_mib, opt));
  // What the target must clear once TTM_MIN_MIB covers the ledger, not just today's TTM_MIN_MIB.
  const floorFor = (l: TtmLedger) => Math.max(l.ttm_min_mib ?? 0, l.required_mib) + l.slack_mib;
  rows.push(row(`TTM_TARGET_MIB needed (floor + ${n(after.slack_mib)} slack)`, before ? floorFor(before) : null, floorFor(after), mib));
  return ["TTM pin ledger (MiB, pinned host RAM)", ...table(rows).map((l) => "  " + l)].join("\n");
}

function slotText(l: TtmLedger): string {
  if (l.slots_mode === "fixed") return n(l.slots, 0);
  return `auto: ${l.max_seqs ?? "?"} × (1 + ${l.checkpoint_retain}) = ${n(l.slots, 0)}`;
}
