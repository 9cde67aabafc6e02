// `observe --format svg`: one panel per card, used memory over time with the boots, the card total,
// the reserve line and kvgate's predicted footprint, so that an operator sees at a glance whether a
// card creeps into its reserve and how far the prediction is from the plateau. The y axis shows the top
// of the card (where creep and reserve live), not 0..total; the dips at boots run off the bottom and
// each boot is marked. A month of per-minute samples is drawn as a min/max band per pixel column.
import { GiB } from "../units/bytes.js";
import { size } from "../kv/format.js";
import { plateauBoot, type CardObservation } from "./cards.js";
import type { CardRead } from "./collect.js";

const W = 1100;
const PANEL_H = 300;
const M = { left: 90, right: 24, top: 58, bottom: 40 };
const HEADER_H = 110;
const PLOT_W = W - M.left - M.right;
/** The chart's pixel columns: a card's used memory is binned into this many min/max pairs while read. */
export const PLOT_COLUMNS = PLOT_W;
const PLOT_H = PANEL_H - M.top - M.bottom;

const C = {
  used: "#2563eb",
  band: "#93c5fd",
  total: "#111827",
  reserve: "#dc2626",
  reserveZone: "#fee2e2",
  predicted: "#16a34a",
  boot: "#6b7280",
  plateau: "#b91c1c",
  grid: "#e5e7eb",
  text: "#111827",
  muted: "#6b7280",
};

/** Characters XML 1.0 does not allow at all, even escaped: C0 controls but tab and newline, U+FFFE/FFFF,
 *  and lone surrogates. Shown text reaches here already escaped (src/secrets/shown.ts); this is the
 *  chart's own guarantee of well-formed XML. */
const NOT_XML =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function esc(s: string): string {
  return s
    .replace(NOT_XML, "\ufffd")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}

function niceStep(range: number, targetTicks: number): number {
  const raw = range / targetTicks;
  const mag = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * mag >= raw) return m * mag;
  return 10 * mag;
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
function dayLabel(ms: number): string {
  const d = new Date(ms);
  return `${MONTHS[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, "0")}`;
}
function timeLabel(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16).replace("T", " ");
}

function gib(bytes: number): string {
  const v = bytes / GiB;
  return `${Number(v.toFixed(Math.abs(v) < 10 ? 2 : 1))} GiB`;
}

/** The used-memory range worth showing: the settled readings (past each boot's first 10 minutes), the
 *  card total and the predicted footprint, with a margin; never below 0. */
function yRange(s: CardRead, o: CardObservation): [number, number] {
  let lo = Infinity;
  for (const b of s.boots) if (b.settled_low_used !== null && b.settled_low_used < lo) lo = b.settled_low_used;
  if (!Number.isFinite(lo)) lo = 0;
  const hi = s.totalBytes;
  // The prediction is drawn when it is near the readings; one far below them (a card kvgate thinks
  // empty) would flatten the creep into a line, so it is named at the bottom instead.
  const p = o.predicted_used_bytes;
  if (p !== null && p >= lo - Math.max(hi - lo, 0.15 * hi)) lo = Math.min(lo, p);
  const span = Math.max(hi - lo, 2 * GiB);
  const bottom = Math.max(0, lo - span * 0.25);
  const step = niceStep((hi - bottom) / GiB, 5) * GiB;
  return [Math.floor(bottom / step) * step, hi + span * 0.04];
}

function panel(s: CardRead, o: CardObservation, y0: number): string {
  const [lo, hi] = yRange(s, o);
  const chart = s.chart;
  const t0 = chart?.t0 ?? s.first;
  const t1 = chart?.t1 ?? Math.max(s.last, t0 + 60_000);
  const x = (t: number): number => M.left + ((t - t0) / (t1 - t0)) * PLOT_W;
  const y = (b: number): number => y0 + M.top + (1 - (b - lo) / (hi - lo)) * PLOT_H;
  const clip = `clip-${esc(o.host)}-${o.index}`.replace(/[^A-Za-z0-9_-]/g, "_");
  const out: string[] = [];
  const below = o.plateau_margin_bytes !== null && o.plateau_margin_bytes < 0;
  const title = `${o.host} · GPU ${o.index}`;
  const verdict =
    o.reserve_bytes === null
      ? `plateau ${size(o.plateau_free_bytes)} free (no reserve in kvgate.yaml)`
      : below
        ? `plateau ${size(o.plateau_free_bytes)} free: ${size(-(o.plateau_margin_bytes as number))} into the ${size(o.reserve_bytes)} reserve`
        : `plateau ${size(o.plateau_free_bytes)} free: ${size(o.plateau_margin_bytes as number)} above the ${size(o.reserve_bytes)} reserve`;
  out.push(`<g class="panel" data-host="${esc(o.host)}" data-gpu="${o.index}">`);
  out.push(`<text x="${M.left}" y="${y0 + 24}" font-size="17" font-weight="600" fill="${C.text}">${esc(title)}</text>`);
  out.push(
    `<text x="${M.left + 150}" y="${y0 + 24}" font-size="15" fill="${below ? C.reserve : C.predicted}" font-weight="600">${esc(verdict)}</text>`,
  );
  const pb = plateauBoot(o);
  const sub = [
    `${o.boots.length} boot${o.boots.length === 1 ? "" : "s"}`,
    pb.creep_bytes === null
      ? null
      : `creep ${size(pb.creep_bytes)} after boot ${o.plateau_boot} (${pb.boot_free_bytes === null ? "?" : size(pb.boot_free_bytes)} free at +10 min)`,
    o.unexplained_bytes === null
      ? null
      : `${size(Math.abs(o.unexplained_bytes))} ${o.unexplained_bytes >= 0 ? "more used than predicted" : "less used than predicted"} at plateau`,
  ].filter((p): p is string => p !== null);
  out.push(`<text x="${M.left}" y="${y0 + 44}" font-size="13" fill="${C.muted}">${esc(sub.join(" · "))}</text>`);
  out.push(`<defs><clipPath id="${clip}"><rect x="${M.left}" y="${y0 + M.top}" width="${PLOT_W}" height="${PLOT_H}"/></clipPath></defs>`);
  out.push(`<rect x="${M.left}" y="${y0 + M.top}" width="${PLOT_W}" height="${PLOT_H}" fill="#ffffff" stroke="${C.grid}"/>`);

  // Reserve zone: used memory above total − reserve eats the reserve.
  if (o.reserve_bytes !== null && o.reserve_bytes > 0) {
    const top = y(s.totalBytes);
    const line = y(s.totalBytes - o.reserve_bytes);
    out.push(
      `<rect x="${M.left}" y="${top.toFixed(1)}" width="${PLOT_W}" ` +
        `height="${Math.max(0, line - top).toFixed(1)}" fill="${C.reserveZone}" clip-path="url(#${clip})"/>`,
    );
  }
  // Y grid and labels.
  const step = niceStep((hi - lo) / GiB, 5) * GiB;
  for (let v = Math.ceil(lo / step) * step; v <= hi; v += step) {
    const yy = y(v).toFixed(1);
    out.push(`<line x1="${M.left}" x2="${M.left + PLOT_W}" y1="${yy}" y2="${yy}" stroke="${C.grid}"/>`);
    out.push(
      `<text x="${M.left - 8}" y="${(Number(yy) + 4).toFixed(1)}" font-size="12" text-anchor="end" fill="${C.muted}">${esc(gib(v))}</text>`,
    );
  }
  out.push(
    `<text transform="translate(${18},${y0 + M.top + PLOT_H / 2}) rotate(-90)" font-size="12" text-anchor="middle" fill="${C.muted}">used memory</text>`,
  );
  // X grid: days (or every few days on long windows).
  const days = (t1 - t0) / 86_400_000;
  const every = days <= 10 ? 1 : days <= 21 ? 2 : days <= 45 ? 5 : 10;
  const firstDay = Math.ceil(t0 / 86_400_000) * 86_400_000;
  let k = 0;
  for (let d = firstDay; d <= t1; d += 86_400_000, k++) {
    if (k % every !== 0) continue;
    const xx = x(d).toFixed(1);
    out.push(`<line x1="${xx}" x2="${xx}" y1="${y0 + M.top}" y2="${y0 + M.top + PLOT_H}" stroke="${C.grid}"/>`);
    out.push(`<text x="${xx}" y="${y0 + M.top + PLOT_H + 18}" font-size="12" text-anchor="middle" fill="${C.muted}">${dayLabel(d)}</text>`);
  }
  if (days <= 3) {
    // Short windows (a boot or two): 6-hour ticks between the days.
    for (let h = Math.ceil(t0 / 21_600_000) * 21_600_000; h <= t1; h += 21_600_000) {
      if (h % 86_400_000 === 0) continue;
      const xx = x(h).toFixed(1);
      out.push(`<line x1="${xx}" x2="${xx}" y1="${y0 + M.top}" y2="${y0 + M.top + PLOT_H}" stroke="${C.grid}" stroke-dasharray="2 4"/>`);
      out.push(
        `<text x="${xx}" y="${y0 + M.top + PLOT_H + 18}" font-size="11" text-anchor="middle" ` +
          `fill="${C.muted}">${new Date(h).toISOString().slice(11, 16)}</text>`,
      );
    }
  }
  if (days < 1)
    out.push(
      `<text x="${M.left}" y="${y0 + M.top + PLOT_H + 18}" font-size="12" fill="${C.muted}">${esc(timeLabel(t0))} → ${esc(timeLabel(t1))} UTC</text>`,
    );

  // Used memory: per pixel column the min and max (a band) and the max as the line (binned while reading).
  const mins = chart?.mins ?? new Float64Array(0);
  const maxs = chart?.maxs ?? new Float64Array(0);
  const cols = mins.length;
  const colX = (c: number): string => (M.left + ((c + 0.5) / cols) * PLOT_W).toFixed(1);
  const upper: string[] = [];
  const lower: string[] = [];
  for (let c = 0; c < cols; c++) {
    if (!Number.isFinite(mins[c])) continue;
    upper.push(`${colX(c)},${y(maxs[c] as number).toFixed(1)}`);
    lower.push(`${colX(c)},${y(mins[c] as number).toFixed(1)}`);
  }
  out.push(`<g clip-path="url(#${clip})">`);
  out.push(`<polygon points="${[...upper, ...lower.reverse()].join(" ")}" fill="${C.band}" fill-opacity="0.55" stroke="none"/>`);
  out.push(`<polyline points="${upper.join(" ")}" fill="none" stroke="${C.used}" stroke-width="1.6" stroke-linejoin="round"/>`);
  out.push(`</g>`);
  // Labels claim their boxes; a later label that would overlap one is left out (its dot keeps a tooltip).
  const taken: [number, number, number, number][] = [];
  const free = (box: [number, number, number, number]): boolean =>
    taken.every(([a, b, c, d]) => box[2] < a || box[0] > c || box[3] < b || box[1] > d);
  const label = (x: number, yy: number, text: string, color: string, anchor: "start" | "end", size = 12): void => {
    const w = text.length * size * 0.58;
    const left = anchor === "end" ? x - w : x;
    const box: [number, number, number, number] = [left - 4, yy - size, left + w + 4, yy + 4];
    if (!free(box)) return;
    taken.push(box);
    out.push(
      `<text x="${x.toFixed(1)}" y="${yy.toFixed(1)}" font-size="${size}" ` +
        `text-anchor="${anchor}" fill="${color}" paint-order="stroke" ` +
        `stroke="#ffffff" stroke-width="3">${esc(text)}</text>`,
    );
  };
  // Card total, reserve line, predicted footprint: their labels first, outside the clip, right-aligned.
  const hline = (v: number, color: string, dash: string, text: string, above: boolean): void => {
    const yy = y(v);
    if (yy < y0 + M.top - 1 || yy > y0 + M.top + PLOT_H + 1) return;
    out.push(
      `<line x1="${M.left}" x2="${M.left + PLOT_W}" y1="${yy.toFixed(1)}" y2="${yy.toFixed(1)}" ` +
        `stroke="${color}" stroke-width="1.5"${dash ? ` stroke-dasharray="${dash}"` : ""}/>`,
    );
    label(M.left + PLOT_W - 6, yy + (above ? -5 : 14), text, color, "end");
  };
  hline(s.totalBytes, C.total, "", `card total ${gib(s.totalBytes)}`, true);
  if (o.reserve_bytes !== null && o.reserve_bytes > 0)
    hline(s.totalBytes - o.reserve_bytes, C.reserve, "6 4", `reserve: keep ${size(o.reserve_bytes)} free`, false);
  if (o.predicted_used_bytes !== null) {
    const text = `kvgate predicts ${gib(o.predicted_used_bytes)} used${o.partial_prediction ? " (radiance not counted)" : ""}`;
    if (o.predicted_used_bytes >= lo) hline(o.predicted_used_bytes, C.predicted, "2 3", text, false);
    else label(M.left + PLOT_W - 6, y0 + M.top + PLOT_H - 6, `${text} ↓ (below the chart)`, C.predicted, "end");
  }

  // Boots (the series' first sample starts one by definition; it is the left edge, not a restart) and
  // each boot's plateau; plateau labels only where they do not run into the previous one.

  s.boots.forEach((b, k) => {
    if (k > 0) {
      const bx = x(b.start).toFixed(1);
      out.push(
        `<line x1="${bx}" x2="${bx}" y1="${y0 + M.top}" y2="${y0 + M.top + PLOT_H}" ` +
          `stroke="${C.boot}" stroke-width="1.2" stroke-dasharray="3 ` +
          `3"><title>${esc(`boot at ${timeLabel(b.start)} UTC`)}</title></line>`,
      );
      label(Number(bx) + 3, y0 + M.top + PLOT_H - 5, `boot ${dayLabel(b.start)}`, C.boot, "start", 11);
    }
    const px = x(b.plateau_at);
    const py = y(s.totalBytes - b.plateau_free_bytes);
    out.push(
      `<circle cx="${px.toFixed(1)}" cy="${py.toFixed(1)}" r="4" fill="${C.plateau}" ` +
        `stroke="#ffffff" ` +
        `stroke-width="1.5"><title>${esc(`plateau ${size(b.plateau_free_bytes)} free at ${timeLabel(b.plateau_at)} UTC`)}</title></circle>`,
    );
    const anchor = px > M.left + PLOT_W - 120 ? "end" : "start";
    label(px + (anchor === "end" ? -7 : 7), py + 16, `${size(b.plateau_free_bytes)} free`, C.plateau, anchor, 11);
  });
  out.push(`</g>`);
  return out.join("\n");
}

function legend(y: number): string {
  const rows: [string, string, string][][] = [
    [
      ["used memory (the band: min–max per pixel)", C.used, ""],
      ["card total", C.total, ""],
      ["reserve line: total − reserve", C.reserve, "6 4"],
    ],
    [
      ["kvgate's predicted footprint", C.predicted, "2 3"],
      ["boot", C.boot, "3 3"],
    ],
  ];
  const out: string[] = [];
  rows.forEach((row, r) => {
    const yy = y + r * 20;
    let x = M.left;
    for (const [label, color, dash] of row) {
      out.push(
        `<line x1="${x}" x2="${x + 26}" y1="${yy}" y2="${yy}" stroke="${color}" stroke-width="2"${dash ? ` stroke-dasharray="${dash}"` : ""}/>`,
      );
      out.push(`<text x="${x + 32}" y="${yy + 4}" font-size="12" fill="${C.text}">${esc(label)}</text>`);
      x += 52 + label.length * 6.3;
    }
    if (r === 1) {
      out.push(
        `<circle cx="${x + 6}" cy="${yy}" r="4" fill="${C.plateau}"/><text x="${x + 16}" ` +
          `y="${yy + 4}" font-size="12" fill="${C.text}">plateau: the least free in a boot</text>`,
      );
      x += 230;
      out.push(
        `<rect x="${x}" y="${yy - 6}" width="22" height="12" ` +
          `fill="${C.reserveZone}"/><text x="${x + 28}" y="${yy + 4}" font-size="12" ` +
          `fill="${C.text}">the reserve: used memory here eats it</text>`,
      );
    }
  });
  return out.join("\n");
}

/** The chart of every card: `read` holds the binned readings and boots, `obs` the figures as shown. */
export function renderSvg(charts: readonly { read: CardRead; obs: CardObservation }[]): string {
  const cards = charts.map((c) => c.obs);
  const h = HEADER_H + Math.max(1, cards.length) * PANEL_H;
  const from = cards.map((c) => c.from).sort()[0];
  const until = cards
    .map((c) => c.until)
    .sort()
    .slice(-1)[0];
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${h}" viewBox="0 0 ${W} ${h}" ` +
      `font-family="system-ui, -apple-system, 'Segoe UI', Roboto, 'DejaVu Sans', sans-serif">`,
    `<rect width="${W}" height="${h}" fill="#f9fafb"/>`,
    `<text x="${M.left}" y="32" font-size="21" font-weight="700" fill="${C.text}">GPU memory at plateau, per card</text>`,
    `<text x="${M.left}" y="54" font-size="13" ` +
      `fill="${C.muted}">${esc(from && until ? `${timeLabel(Date.parse(from))} → ${timeLabel(Date.parse(until))} UTC · headroom counts at plateau, not at boot` : "no samples")}</text>`,
    legend(76),
  ];
  charts.forEach((c, i) => parts.push(panel(c.read, c.obs, HEADER_H + i * PANEL_H)));
  parts.push("</svg>");
  return parts.join("\n") + "\n";
}
