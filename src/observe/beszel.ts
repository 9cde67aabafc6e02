// Beszel system-stats records (the hub's PocketBase collection `system_stats`: id, system, stats, type,
// created, updated), as its API lists them (a JSON array, or a list response {"items": [...]}, JSON
// lines of records) or as its SQLite database exports them (`sqlite3 -json` or `-header -csv`, where
// `stats` is the JSON column's text). Per GPU, stats.g.<id>: `mu` used memory and `mt` the total, in
// Beszel's unit: MiB = value × 1.024 (docs/usage-observe.md). The agent's GPUData struct tags both
// `omitempty,omitzero`: a card with nothing loaded (a restart) has no `mu` at all, which is a reading
// of 0, not a missing one. Records of several `type`s (1m, 10m, 20m, 120m, 480m averages) cover the
// same time at different grains: the finest present is used, and a note names the others.
//
// Beszel keeps 1m records for an hour and 480m ones for a month: an export is small, so it is read whole.
import { MiB } from "../units/bytes.js";
import { parseTimestamp } from "../units/timestamps.js";
import type { MetricsSink } from "./sample.js";

const BESZEL_MIB = 1.024;

export interface BeszelRecord {
  rec: unknown;
  line: number | null;
}

interface Fields {
  created?: unknown;
  type?: unknown;
  system?: unknown;
  system_name?: unknown;
  stats?: unknown;
  expand?: { system?: { name?: unknown } };
}

function minutes(type: string): number {
  const m = /^(\d+)m$/.exec(type);
  return m ? Number(m[1]) : Number.MAX_SAFE_INTEGER;
}

function typeOf(r: Fields | null): string {
  return typeof r?.type === "string" ? r.type : "1m";
}

/** The records of a parsed JSON document: an array, or a PocketBase list response; null when neither. */
export function beszelRecords(doc: unknown): unknown[] | null {
  if (Array.isArray(doc)) return doc as unknown[];
  const items = (doc as { items?: unknown })?.items;
  return Array.isArray(items) ? items : null;
}

/** The name of the record's system: the expanded relation (?expand=system), or a system_name column. */
function hostOf(r: Fields): string | null {
  const name = r.expand?.system?.name ?? r.system_name;
  return typeof name === "string" && name !== "" ? name : null;
}

function statsOf(r: Fields): { g: unknown } | string {
  let s = r.stats;
  if (typeof s === "string") {
    // SQLite exports carry the JSON column as its text.
    const text = s;
    try {
      s = JSON.parse(text);
    } catch {
      return `"stats" is text that is not JSON: ${JSON.stringify(text.slice(0, 40))}`;
    }
  }
  if (typeof s !== "object" || s === null || Array.isArray(s)) return `"stats" is not an object`;
  return { g: (s as { g?: unknown }).g };
}

/** True when the record has the fields of a Beszel system_stats record. */
export function looksLikeBeszel(rec: unknown): boolean {
  return typeof rec === "object" && rec !== null && "stats" in rec && "created" in rec;
}

export function readBeszel(records: readonly BeszelRecord[], file: string, sink: MetricsSink): void {
  const types = new Set<string>();
  for (const { rec } of records) types.add(typeOf(rec as Fields));
  const order = [...types].sort((a, b) => minutes(a) - minutes(b));
  const finest = order[0] ?? "1m";
  if (types.size > 1) sink.note(`${file}: records of types ${order.join(", ")}: using the finest, ${finest}`);
  const systems = new Set<string>();
  let withoutGpu = 0;
  let readings = 0;
  let unnamed = false;
  for (const { rec, line } of records) {
    const r = rec as Fields | null;
    if (typeOf(r) !== finest) continue;
    if (typeof r !== "object" || r === null) {
      sink.problem(line, "not a Beszel record (an object with created and stats)");
      continue;
    }
    const t = typeof r.created === "string" ? parseTimestamp(r.created) : null;
    if (t === null) {
      sink.problem(line, `not a Beszel record: "created" is ${JSON.stringify(r.created ?? null).slice(0, 40)}`);
      continue;
    }
    const stats = statsOf(r);
    if (typeof stats === "string") {
      sink.problem(line, stats);
      continue;
    }
    const g = stats.g;
    if (g === undefined || g === null) {
      withoutGpu++;
      continue;
    }
    if (typeof g !== "object" || Array.isArray(g)) {
      sink.problem(line, `stats.g is not an object of GPUs`);
      continue;
    }
    const host = hostOf(r);
    if (host === null) unnamed = true;
    if (typeof r.system === "string") systems.add(r.system);
    for (const [key, gpu] of Object.entries(g as Record<string, unknown>)) {
      const index = /^\d{1,4}$/.test(key) ? Number(key) : NaN;
      if (!Number.isInteger(index) || typeof gpu !== "object" || gpu === null) {
        sink.problem(line, `stats.g.${key.slice(0, 40)}: not a GPU (an index with its n, mu, mt)`);
        continue;
      }
      const o = gpu as { mu?: unknown; mt?: unknown };
      // omitzero: no `mu` is 0 MiB used.
      const mu = o.mu === undefined ? 0 : typeof o.mu === "number" ? o.mu : NaN;
      if (!Number.isFinite(mu) || mu < 0) {
        sink.problem(line, `stats.g.${key}.mu: not MiB ≥ 0: ${JSON.stringify(o.mu).slice(0, 40)}`);
        continue;
      }
      const mt = typeof o.mt === "number" && Number.isFinite(o.mt) && o.mt > 0 ? o.mt : null;
      readings++;
      sink.gpu(
        {
          host,
          index,
          t,
          used: Math.round(mu * BESZEL_MIB * MiB),
          free: null,
          total: mt === null ? null : Math.round(mt * BESZEL_MIB * MiB),
        },
        line,
      );
    }
  }
  if (systems.size > 1 && unnamed) {
    throw new Error(
      `${file}: records of ${systems.size} Beszel systems without their names: ` +
        `export one system per file (and name it with --host), expand the system relation ` +
        `(?expand=system), or select s.name AS system_name with a join on systems`,
    );
  }
  if (readings === 0 && withoutGpu > 0)
    sink.note(`${file}: ${withoutGpu} ${finest} record${withoutGpu === 1 ? " has" : "s have"} no stats.g: the agent reported no GPU then`);
}
