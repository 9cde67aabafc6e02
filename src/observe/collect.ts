// Reading every metrics file into per-card boots and per-engine KV evidence, in memory that does not
// grow with the readings: one pass streams each file into a CardTrack per card (./track.ts) and the
// engine collector (./engine.ts). A second pass runs only when it must: for a card whose readings came
// out of time order (that card alone is then held in typed arrays and sorted), and for the SVG, which
// bins each card's used memory per pixel column once the time range is known.
import { statSync } from "node:fs";
import { GateError } from "../errors.js";
import type { Boot } from "./boots.js";
import { BootTracker } from "./boots.js";
import { EngineCollector, type EngineSeries } from "./engine.js";
import { readMetrics, type Sniffed } from "./read.js";
import type { GpuReading, MetricsProblem, MetricsSink } from "./sample.js";
import { CardTrack, HeldReadings } from "./track.js";

/** How many skipped readings are kept with their file and line (all are counted). */
const PROBLEM_LIST = 200;

export interface CollectOptions {
  files: readonly Sniffed[];
  /** --host: every card of every file is read as this host (a DCGM exporter in docker labels its
   *  cards with the container id). A file naming several hosts is then refused. */
  host: string | null;
  /** For readings that name no host: --host, else the fleet's only host. */
  defaultHost: string | null;
  /** The fleet's CUDA total of a card, when kvgate.yaml lists it. */
  fleetTotal(host: string, index: number): number | null;
  since: number | null;
  until: number | null;
  /** The chart's columns: the per-column min/max of used memory is kept (a second pass); null: no chart. */
  chartColumns: number | null;
}

interface CardChart {
  t0: number;
  t1: number;
  mins: Float64Array;
  maxs: Float64Array;
}

export interface CardRead {
  host: string;
  index: number;
  samples: number;
  first: number;
  last: number;
  totalBytes: number;
  totalSource: "metrics" | "fleet";
  boots: Boot[];
  chart: CardChart | null;
}

export interface Collected {
  cards: CardRead[];
  engines: EngineSeries[];
  problems: MetricsProblem[];
  problemCount: number;
  notes: string[];
}

const key = (host: string, index: number): string => `${host}\u0000${index}`;

export async function collectMetrics(o: CollectOptions): Promise<Collected> {
  const tracks = new Map<string, CardTrack>();
  const engines = new EngineCollector();
  const problems: MetricsProblem[] = [];
  let problemCount = 0;
  const notes: string[] = [];
  const inWindow = (t: number): boolean => (o.since === null || t >= o.since) && (o.until === null || t < o.until);

  for (const f of o.files) {
    const file = f.file;
    const problem = (line: number | null, reason: string): void => {
      problemCount++;
      if (problems.length < PROBLEM_LIST) problems.push({ file, line, reason });
    };
    const hostOf = hostResolver(file, o, notes);
    let scrapeTime: number | null = null;
    const sink: MetricsSink = {
      gpu(r, line) {
        if (!inWindow(r.t)) return;
        const host = hostOf(r.host);
        let t = tracks.get(key(host, r.index));
        if (!t) {
          t = new CardTrack({ host, index: r.index, fleetTotal: o.fleetTotal(host, r.index), problem });
          tracks.set(key(host, r.index), t);
        }
        t.add(r, line);
      },
      engine(s) {
        // A scrape without timestamps is taken to be of the file's time (said in a note).
        let t = s.t;
        if (t === null) {
          if (scrapeTime === null) {
            scrapeTime = statSync(file).mtimeMs;
            notes.push(
              `${file}: a scrape without timestamps: read as taken at the file's modification ` +
                `time, ${new Date(scrapeTime).toISOString().slice(0, 16).replace("T", " ")} UTC`,
            );
          }
          t = scrapeTime;
        }
        if (s.metric !== "start" && !inWindow(t)) return;
        engines.add({ ...s, t });
      },
      problem,
      note: (text) => notes.push(text),
    };
    await readMetrics(f, sink);
  }

  const cards: CardRead[] = [];
  const again = new Map<string, { track: CardTrack; held: HeldReadings | null; chart: CardChart | null }>();
  for (const t of tracks.values()) {
    if (t.samples === 0 && t.noTotal > 0 && t.total === null) {
      throw new GateError(`${t.host} GPU ${t.index}: no total memory: the metrics have none and kvgate.yaml does not list the card`, {
        hint:
          `add the card under fleet.hosts.${t.host}.gpus with its total (and cuda_total), or ` +
          `export memory.total (nvidia-smi) / both DCGM_FI_DEV_FB_USED and DCGM_FI_DEV_FB_FREE`,
      });
    }
    if (t.noTotal > 0) notes.push(`${t.host} GPU ${t.index}: ${t.noTotal} readings before the first with a total were left out`);
    const boots = t.ordered ? t.finish() : [];
    if (t.ordered && t.samples === 0) continue;
    const chart = t.ordered && o.chartColumns !== null ? emptyChart(t.first, t.last, Math.min(o.chartColumns, t.samples)) : null;
    if (!t.ordered || chart) again.set(key(t.host, t.index), { track: t, held: t.ordered ? null : new HeldReadings(), chart });
    cards.push({
      host: t.host,
      index: t.index,
      samples: t.samples,
      first: t.first,
      last: t.last,
      totalBytes: t.total as number,
      totalSource: t.totalSource,
      boots,
      chart,
    });
  }

  if (again.size > 0) {
    // The second pass: readings resolved as in the first (its problems are already counted).
    const quiet = new Map<string, CardTrack>();
    for (const f of o.files) {
      const hostOf = hostResolver(f.file, o, []);
      const sink: MetricsSink = {
        gpu(r: GpuReading, line) {
          if (!inWindow(r.t)) return;
          const host = hostOf(r.host);
          const a = again.get(key(host, r.index));
          if (!a) return;
          let q = quiet.get(key(host, r.index));
          if (!q) {
            q = new CardTrack({ host, index: r.index, fleetTotal: o.fleetTotal(host, r.index), problem: () => {} });
            quiet.set(key(host, r.index), q);
          }
          const uf = q.resolve(r, line);
          if (uf === null) return;
          if (a.held) a.held.push(r.t, uf[0], uf[1]);
          else if (a.chart) bin(a.chart, r.t, uf[0]);
        },
        engine() {},
        problem() {},
        note() {},
      };
      await readMetrics(f, sink);
    }
    for (const card of cards) {
      const a = again.get(key(card.host, card.index));
      if (!a?.held) continue;
      const boots = new BootTracker();
      let n = 0;
      let first = Infinity;
      let last = -Infinity;
      a.held.each((t, used, free) => {
        boots.push(t, used, free);
        n++;
        if (t < first) first = t;
        last = t;
      });
      card.boots = boots.boots();
      card.samples = n;
      card.first = first;
      card.last = last;
      if (o.chartColumns !== null) {
        const chart = emptyChart(first, last, Math.min(o.chartColumns, n));
        a.held.each((t, used) => bin(chart, t, used));
        card.chart = chart;
      }
    }
  }
  return {
    cards: cards.filter((c) => c.samples > 0).sort((a, b) => (a.host < b.host ? -1 : a.host > b.host ? 1 : a.index - b.index)),
    engines: engines.finish(),
    problems,
    problemCount,
    notes,
  };
}

function emptyChart(first: number, last: number, cols: number): CardChart {
  return {
    t0: first,
    t1: Math.max(last, first + 60_000),
    mins: new Float64Array(Math.max(1, cols)).fill(Infinity),
    maxs: new Float64Array(Math.max(1, cols)).fill(-Infinity),
  };
}

function bin(c: CardChart, t: number, used: number): void {
  const cols = c.mins.length;
  const i = Math.max(0, Math.min(cols - 1, Math.floor(((t - c.t0) / (c.t1 - c.t0)) * cols)));
  if (used < (c.mins[i] as number)) c.mins[i] = used;
  if (used > (c.maxs[i] as number)) c.maxs[i] = used;
}

/**
 * The host a reading of `file` is read as. With --host, every card is that host's; a file that names
 * two hosts cannot be one host, and is refused. Without it, the reading's own host, else the default.
 */
function hostResolver(file: string, o: CollectOptions, notes: string[]): (host: string | null) => string {
  let named: string | null = null;
  return (host) => {
    if (o.host !== null) {
      if (host !== null && host !== named) {
        if (named !== null) {
          throw new GateError(`${file} names the cards of several hosts (${named}, ${host}): --host ${o.host} would read them as one`, {
            hint: "leave out --host (each card keeps its host label), or give one file per host",
          });
        }
        named = host;
        if (host !== o.host) notes.push(`${file}: its cards are labelled host ${host}: read as ${o.host} (--host)`);
      }
      return o.host;
    }
    const h = host ?? o.defaultHost;
    if (h === null) {
      throw new GateError(`${file}: the metrics do not name the host of their cards`, {
        hint: "name it with --host HOST (a host of kvgate.yaml fleet.hosts)",
      });
    }
    return h;
  };
}
