// Raw readings → one time series per card (host, index), sorted by time, with free memory filled in:
// the source's own free figure, else the source's total − used, else the fleet's total − used. Two
// readings of one card at one instant (overlapping files) keep the later file's.
import { GateError } from "../errors.js";
import type { RawSample } from "./sample.js";

export interface CardSeries {
  host: string;
  index: number;
  times: Float64Array;
  used: Float64Array;
  free: Float64Array;
  /** The total the free figures come from (the source's, else the fleet's). */
  totalBytes: number;
  totalSource: "metrics" | "fleet";
}

export interface SeriesOptions {
  /** For sources without a host name (nvidia-smi): --host, or the fleet's only host. */
  defaultHost: string | null;
  /** The fleet's card total, when kvgate.yaml lists the card. */
  fleetTotal(host: string, index: number): number | null;
  since: number | null;
  until: number | null;
}

export function cardSeries(samples: RawSample[], o: SeriesOptions): CardSeries[] {
  const groups = new Map<string, { host: string; index: number; rows: RawSample[] }>();
  for (const s of samples) {
    if ((o.since !== null && s.t < o.since) || (o.until !== null && s.t >= o.until)) continue;
    const host = s.host ?? o.defaultHost;
    if (host === null) {
      throw new GateError("the metrics do not name the host of their cards (nvidia-smi's CSV never does)", {
        hint: "name it with --host HOST (a host of kvgate.yaml fleet.hosts)",
      });
    }
    const key = `${host}\0${s.index}`;
    let g = groups.get(key);
    if (!g) {
      g = { host, index: s.index, rows: [] };
      groups.set(key, g);
    }
    g.rows.push(s);
  }
  const out: CardSeries[] = [];
  for (const g of groups.values()) {
    // A stable sort keeps equal times in file order; of those the last is kept.
    const sorted = g.rows.sort((a, b) => a.t - b.t);
    const rows = sorted.filter((r, i) => i + 1 === sorted.length || (sorted[i + 1] as RawSample).t !== r.t);
    const fleetTotal = o.fleetTotal(g.host, g.index);
    const observed = rows.find((r) => r.total !== null)?.total ?? null;
    const total = observed ?? fleetTotal;
    if (total === null) {
      throw new GateError(`${g.host} GPU ${g.index}: no total memory: the metrics have none and kvgate.yaml does not list the card`, {
        hint: `add the card under fleet.hosts.${g.host}.gpus with its total, or export memory.total (nvidia-smi) / both DCGM_FI_DEV_FB_USED and DCGM_FI_DEV_FB_FREE`,
      });
    }
    const n = rows.length;
    const times = new Float64Array(n);
    const used = new Float64Array(n);
    const free = new Float64Array(n);
    rows.forEach((r, i) => {
      const t = r.total ?? total;
      const u = r.used >= 0 ? r.used : t - (r.free ?? 0);
      times[i] = r.t;
      used[i] = u;
      free[i] = r.free ?? t - u;
    });
    out.push({ host: g.host, index: g.index, times, used, free, totalBytes: total, totalSource: observed !== null ? "metrics" : "fleet" });
  }
  return out.sort((a, b) => (a.host < b.host ? -1 : a.host > b.host ? 1 : a.index - b.index));
}
