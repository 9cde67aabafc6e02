// The per-card table of `kvgate explain`: each occupant's weights, KV, overhead and footprint, the
// card's spare, and a bar per card (used, reserve, free) so a full card is seen at a glance.
import { COLORS, PLAIN, type Paint } from "./color.js";
import type { CardUsage, CardEntry } from "../kv/card-usage.js";
import { size } from "../kv/format.js";
import { worstBootOrder } from "../kv/boot-order.js";

const BAR = 40;

function bar(l: CardUsage, p: Paint): string {
  const total = Math.max(1, l.total_bytes);
  const cells = (b: number) => Math.max(0, Math.round((b / total) * BAR));
  const used = Math.min(BAR, cells(l.used_bytes));
  // A reserve always shows, however thin: it is what must stay free.
  const reserve = Math.min(BAR - used, l.reserve_bytes > 0 ? Math.max(1, cells(l.reserve_bytes)) : 0);
  const free = BAR - used - reserve;
  const over = l.spare_bytes < 0;
  const usedPart = "█".repeat(used);
  return `[${over ? p.red(usedPart) : p.green(usedPart)}${p.yellow("▒".repeat(reserve))}${p.dim("░".repeat(free))}]${over ? p.red(" over") : ""}`;
}

function row(e: CardEntry, seatW: number): string[] {
  const name = e.kind === "seat" ? e.name : e.kind === "tenant" ? `${e.name} (tenant)` : `${e.name} (${e.engine ?? "service"})`;
  if (e.kind === "seat") {
    const kv = e.pinned ? size(e.kv_bytes) : `~${size(e.kv_bytes)} util ${e.seat.utilization}`;
    return [
      name.padEnd(seatW),
      e.weights_bytes === null ? "?" : size(e.weights_bytes),
      kv,
      size(e.overhead_bytes),
      size(e.footprint_bytes),
    ];
  }
  if (e.kind === "tenant") return [name.padEnd(seatW), "", "", "", size(e.footprint_bytes)];
  return [name.padEnd(seatW), "", "", "", "not counted"];
}

export function renderCardTable(usages: CardUsage[], opts: { color: boolean }): string {
  const p = opts.color ? COLORS : PLAIN;
  const out: string[] = [];
  const heads = ["", "weights", "KV", "overhead", "footprint"];
  for (const l of usages) {
    out.push(
      `${p.bold(`${l.host} gpu ${l.index}`)}${l.name ? ` ${l.name}` : ""} ` +
        ` ${size(l.total_bytes)} total, ${size(l.reserve_bytes)} ` +
        `reserve${l.ledgerSized ? p.dim("  (radiance: sized by its ledger)") : ""}`,
    );
    const seatW = Math.max(12, ...l.entries.map((e) => e.name.length + 12));
    const rows = l.entries.map((e) => row(e, seatW));
    const widths = heads.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
    const fmt = (r: string[]) => "  " + r.map((c, i) => (i === 0 ? c.padEnd(widths[0] ?? 0) : c.padStart(widths[i] ?? 0))).join("  ");
    if (rows.length === 0) out.push(p.dim("  (empty)"));
    else {
      out.push(p.dim(fmt(heads)));
      for (const r of rows) out.push(fmt(r));
    }
    const spare = l.spare_bytes < 0 ? p.red(`over by ${size(-l.spare_bytes)}`) : p.green(`spare ${size(l.spare_bytes)}`);
    out.push(`  used ${size(l.used_bytes)} of ${size(l.total_bytes - l.reserve_bytes)}  ${spare}`);
    out.push(`  ${bar(l, p)}`);
    const boot = worstBootOrder(l);
    if (boot) {
      const verdict =
        boot.margin_bytes < 0 ? p.red(`short by ${size(-boot.margin_bytes)}: it fails to boot`) : `${size(boot.margin_bytes)} to spare`;
      const uncounted = boot.uncounted.length > 0 ? p.dim(` (${boot.uncounted.join(", ")} not counted)`) : "";
      out.push(
        `  worst boot order: ${boot.order.join(" → ")}: ${boot.last} boots with ` +
          `${size(boot.free_bytes)} free for the ${size(boot.asked_bytes)} it asks, ${verdict}${uncounted}`,
      );
    }
    out.push("");
  }
  return out.join("\n");
}
