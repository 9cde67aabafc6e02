// The text of `kvgate plan`: the layout per card, the moves, and how to make each (which file to edit).
import type { FleetState } from "../model/types.js";
import type { PlanResult } from "../plan/problem.js";
import type { RaisePlan } from "../plan/raise.js";
import { size } from "../kv/format.js";
import { COLORS, PLAIN } from "./color.js";
import { seatMoveText } from "./plan-move.js";
import { formatNumber } from "../units/bytes.js";

/** A gap in GiB, however small ("0.004 GiB", "under 0.001 GiB", never "1 bytes"): spares are read in GiB. */
export function gapGiB(bytes: number): string {
  const g = bytes / 2 ** 30;
  if (g < 0.001) return "under 0.001 GiB";
  return `${Number(g.toFixed(g >= 0.01 ? 2 : 3))} GiB`;
}

/** `state`: the fleet as deployed; `opts.written`: as its env files say (a compose move names both lines). */
export function renderPlan(result: PlanResult, state: FleetState, opts: { color: boolean; written?: FleetState }): string {
  const p = opts.color ? COLORS : PLAIN;
  const out: string[] = [];
  const today = result.today_worst_spare_bytes;
  const proof = !result.boots
    ? p.red("no layout lets every vLLM seat boot last (kv/boot-check): the layout shown fails the gate")
    : result.optimal
      ? `proven optimal${result.resolution_bytes > 1 ? ` to ${size(result.resolution_bytes)}` : ""} (${formatNumber(result.nodes)} nodes)`
      : `best found in ${formatNumber(result.nodes)} nodes, not proven: the optimum is at ` +
        `most ${gapGiB(result.worst_spare_bound_bytes - result.worst_spare_bytes)} better`;
  out.push(
    `${p.bold(`plan for ${result.host}`)}: worst card spare ${size(result.worst_spare_bytes)}${today === null ? "" : ` (today ${size(today)})`}, ${proof}`,
  );
  for (const c of result.cards) {
    const spare = c.spare_bytes < 0 ? p.red(`over by ${size(-c.spare_bytes)}`) : `spare ${size(c.spare_bytes)}`;
    out.push(
      `  gpu ${c.index}: ${size(c.used_bytes)} of ${size(c.total_bytes - c.reserve_bytes)}, ${spare}  ${p.dim(c.occupants.join(", "))}`,
    );
  }
  if (result.moves.length === 0)
    out.push(
      !result.boots
        ? "  no moves"
        : result.optimal
          ? "  no moves: today's layout is already optimal"
          : "  no moves: nothing better than today's layout was found",
    );
  else {
    out.push("  moves:");
    for (const m of result.moves) {
      const how =
        m.kind === "seat"
          ? seatMoveText(m.name, m.to, state, opts.written ?? null)
          : `set gpu: ${m.to} for tenant ${m.name} in kvgate.yaml`;
      out.push(`    ${m.name}: gpu ${m.from ?? "?"} → ${m.to}  ${p.dim(how)}`);
    }
  }
  for (const n of result.notes) out.push(p.dim(`  note: ${n}`));
  return out.join("\n") + "\n";
}

/** `kvgate plan --raise-contexts`: the seats raised to their maximum, the settings to write, and the layout that holds them. */
export function renderRaise(plan: RaisePlan, state: FleetState, opts: { color: boolean }): string {
  const p = opts.color ? COLORS : PLAIN;
  const out: string[] = [];
  const total = plan.raised.length + plan.kept.length;
  out.push(
    `${p.bold(`raise contexts on ${plan.host}`)}: ${plan.raised.length} of ${total} ` +
      `seat${total === 1 ? "" : "s"} below their model's maximum can run at ` +
      `it${plan.exhaustive ? "" : " (too many candidates to try every set: added one at a time)"}`,
  );
  for (const r of plan.raised) {
    const kv =
      r.kv_source === "pinned"
        ? `KV ${size(r.kv_from_bytes)} → ${size(r.kv_to_bytes)}`
        : `KV estimate ${size(r.kv_from_bytes)} holds the ${size(r.kv_to_bytes)} required`;
    const how = r.fixes.map((f) => `${f.key}=${f.value}`).join(", ");
    const file = r.fixes[0]?.file ?? "";
    out.push(`  ${r.name}: ${formatNumber(r.from_tokens)} → ${formatNumber(r.to_tokens)} tokens, ${kv}  ${p.dim(`set ${how} in ${file}`)}`);
  }
  for (const k of plan.kept)
    out.push(`  ${k.name}: stays at ${formatNumber(k.max_model_len)} of ${formatNumber(k.native_max)} tokens: ${k.reason}`);
  out.push(renderPlan(plan.layout, state, opts).trimEnd());
  return out.join("\n") + "\n";
}
