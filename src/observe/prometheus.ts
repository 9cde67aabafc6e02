// A Prometheus range query (`/api/v1/query_range`) of the DCGM exporter's DCGM_FI_DEV_FB_USED and/or
// DCGM_FI_DEV_FB_FREE, in MiB, labelled `gpu` (the index) and `Hostname`. With both metrics a card's
// total is used + free; with one, the fleet's card total fills in the other.
import { MiB } from "../units/bytes.js";
import type { MetricsRead, RawSample } from "./sample.js";

interface Series {
  metric?: Record<string, string>;
  values?: unknown;
}

const USED = "DCGM_FI_DEV_FB_USED";
const FREE = "DCGM_FI_DEV_FB_FREE";

export function readPrometheus(doc: unknown, file: string): MetricsRead {
  const out: MetricsRead = { samples: [], problems: [], notes: [] };
  const data = (doc as { data?: { resultType?: string; result?: unknown } })?.data;
  if (!data || data.resultType !== "matrix" || !Array.isArray(data.result)) {
    throw new Error(
      `${file}: not a Prometheus range-query result (expected {"status":"success","data":{"resultType":"matrix","result":[...]}} from /api/v1/query_range)`,
    );
  }
  // Readings by host/gpu/time: used and free arrive in separate series.
  const byKey = new Map<string, { host: string | null; index: number; t: number; used: number | null; free: number | null }>();
  let skippedSeries = 0;
  for (const s of data.result as Series[]) {
    const name = s.metric?.__name__;
    const gpu = Number(s.metric?.gpu);
    if ((name !== USED && name !== FREE) || !Number.isInteger(gpu) || !Array.isArray(s.values)) {
      skippedSeries++;
      continue;
    }
    const host = s.metric?.Hostname ?? s.metric?.hostname ?? null;
    for (const v of s.values as unknown[]) {
      const pair = v as [unknown, unknown];
      const t = Number(pair?.[0]) * 1000;
      const val = Number(pair?.[1]);
      if (!Number.isFinite(t) || !Number.isFinite(val) || val < 0) {
        out.problems.push({ file, line: null, reason: `${name}{gpu="${gpu}"}: unreadable value ${JSON.stringify(v).slice(0, 40)}` });
        continue;
      }
      const key = `${host}\0${gpu}\0${t}`;
      const r = byKey.get(key) ?? { host, index: gpu, t, used: null, free: null };
      if (name === USED) r.used = Math.round(val * MiB);
      else r.free = Math.round(val * MiB);
      byKey.set(key, r);
    }
  }
  if (skippedSeries > 0) out.notes.push(`${file}: ${skippedSeries} series that are not ${USED}/${FREE} with a gpu label were left out`);
  for (const r of byKey.values()) {
    const s: RawSample = {
      host: r.host,
      index: r.index,
      t: r.t,
      used: r.used ?? -1,
      free: r.free,
      total: r.used !== null && r.free !== null ? r.used + r.free : null,
    };
    out.samples.push(s);
  }
  return out;
}
