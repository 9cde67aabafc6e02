// Beszel system-stats records (PocketBase collection system_stats: `created`, `type`, `stats`), as a
// JSON array, a PocketBase list response ({"items": [...]}) or JSON lines. Per GPU, stats.g.<n>.mu is
// used memory and stats.g.<n>.mt the total, both in Beszel's unit: MiB = value × 1.024 (contract §16).
// Records of several `type`s (1m, 10m, 120m, ... averages) cover the same time at different grains: the
// finest present is used, and the others are named in a note.
import { MiB } from "../units/bytes.js";
import { parseTimestamp } from "../units/timestamps.js";
import type { MetricsRead } from "./sample.js";

const BESZEL_MIB = 1.024;

interface BeszelRecord {
  created?: unknown;
  type?: unknown;
  system?: unknown;
  stats?: { g?: Record<string, { mu?: unknown; mt?: unknown }> };
  expand?: { system?: { name?: unknown } };
}

function minutes(type: string): number {
  const m = /^(\d+)m$/.exec(type);
  return m ? Number(m[1]) : Number.MAX_SAFE_INTEGER;
}

export function beszelRecords(doc: unknown): unknown[] | null {
  if (Array.isArray(doc)) return doc as unknown[];
  const items = (doc as { items?: unknown })?.items;
  return Array.isArray(items) ? items : null;
}

export function readBeszel(records: { rec: unknown; line: number | null }[], file: string): MetricsRead {
  const out: MetricsRead = { samples: [], problems: [], notes: [] };
  const types = new Set<string>();
  for (const { rec } of records) {
    const t = (rec as BeszelRecord)?.type;
    types.add(typeof t === "string" ? t : "1m");
  }
  const finest = [...types].sort((a, b) => minutes(a) - minutes(b))[0] ?? "1m";
  if (types.size > 1)
    out.notes.push(
      `${file}: records of types ${[...types].sort((a, b) => minutes(a) - minutes(b)).join(", ")}: using the finest, ${finest}`,
    );
  const systems = new Set<string>();
  for (const { rec, line } of records) {
    const r = rec as BeszelRecord;
    if ((typeof r?.type === "string" ? r.type : "1m") !== finest) continue;
    const t = typeof r?.created === "string" ? parseTimestamp(r.created) : null;
    if (t === null) {
      out.problems.push({ file, line, reason: `not a Beszel record: "created" is ${JSON.stringify(r?.created ?? null)}` });
      continue;
    }
    const g = r.stats?.g;
    if (!g || typeof g !== "object") continue; // a record of a moment without GPU data
    const name = r.expand?.system?.name;
    const host = typeof name === "string" && name !== "" ? name : null;
    if (typeof r.system === "string") systems.add(r.system);
    for (const [key, gpu] of Object.entries(g)) {
      const index = Number(key);
      const mu = Number(gpu?.mu);
      if (!Number.isInteger(index) || index < 0 || !Number.isFinite(mu) || mu < 0) {
        out.problems.push({ file, line, reason: `stats.g.${key}: not a GPU index with a memory reading` });
        continue;
      }
      const mt = Number(gpu?.mt);
      out.samples.push({
        host,
        index,
        t,
        used: Math.round(mu * BESZEL_MIB * MiB),
        free: null,
        total: Number.isFinite(mt) && mt > 0 ? Math.round(mt * BESZEL_MIB * MiB) : null,
      });
    }
  }
  if (systems.size > 1 && out.samples.some((s) => s.host === null)) {
    throw new Error(
      `${file}: records of ${systems.size} Beszel systems without their names: export one system per file (and name it with --host), or expand the system relation (?expand=system)`,
    );
  }
  return out;
}
