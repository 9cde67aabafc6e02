// vLLM's own KV evidence, per seat: how full its KV cache got (vllm:kv_cache_usage_perc, the share of
// KV blocks in use), how many requests ran and waited, and when it preempted. vLLM preempts a running
// request when a step needs a KV block and none is free: it drops the request's blocks and recomputes
// it later. A seat that preempts had less KV than its traffic needed — the one direct sign, where the
// spend logs only suggest it.
//
// A series is one engine (`engine` label: the data-parallel rank) of one served model (`model_name`) on
// one instance. vllm:num_preemptions_total is a counter: an increase between two samples is that many
// preemptions in that interval; a drop is a restart (the counter starts again from 0). Consecutive
// intervals with preemptions make one window. A single /metrics scrape has one value: the preemptions
// since the engine started (process_start_time_seconds, when the scrape has it) until the scrape.
import type { EngineMetric, EngineSample } from "./sample.js";

export interface PreemptionWindow {
  /** null when the window starts at an engine start the metrics do not give. */
  from: number | null;
  until: number;
  preemptions: number;
}

export interface EngineSeries {
  model: string;
  engine: string;
  instance: string;
  samples: number;
  from: number;
  until: number;
  peakKv: number | null;
  peakKvAt: number | null;
  peakRunning: number | null;
  peakWaiting: number | null;
  /** Preemptions inside the window the samples cover. */
  preemptions: number;
  /** The counter's value at the first sample of a series of several: preemptions before the window. */
  preemptionsBefore: number;
  windows: PreemptionWindow[];
}

class Points {
  t: number[] = [];
  v: number[] = [];
  push(t: number, v: number): void {
    this.t.push(t);
    this.v.push(v);
  }
  /** The points by time; of two at one instant, the later read is kept. */
  sorted(): { t: number[]; v: number[] } {
    const order = this.t.map((_, i) => i).sort((a, b) => (this.t[a] as number) - (this.t[b] as number) || a - b);
    const t: number[] = [];
    const v: number[] = [];
    for (const i of order) {
      const ti = this.t[i] as number;
      if (t.length > 0 && t[t.length - 1] === ti) v[v.length - 1] = this.v[i] as number;
      else {
        t.push(ti);
        v.push(this.v[i] as number);
      }
    }
    return { t, v };
  }
}

type Metrics = Record<Exclude<EngineMetric, "start">, Points>;

export class EngineCollector {
  private readonly series = new Map<string, { model: string; engine: string; instance: string; m: Metrics }>();
  /** process_start_time_seconds by instance: when the counters of that process started (ms). */
  private readonly starts = new Map<string, number>();

  /** `t` must be set (the caller gives a scrape without timestamps its time). */
  add(s: EngineSample & { t: number }): void {
    if (s.metric === "start") {
      this.starts.set(s.instance, Math.max(this.starts.get(s.instance) ?? 0, s.v * 1000));
      return;
    }
    const key = `${s.model}\u0000${s.engine}\u0000${s.instance}`;
    let e = this.series.get(key);
    if (!e) {
      e = {
        model: s.model,
        engine: s.engine,
        instance: s.instance,
        m: { kv: new Points(), running: new Points(), waiting: new Points(), preemptions: new Points() },
      };
      this.series.set(key, e);
    }
    e.m[s.metric].push(s.t, s.v);
  }

  finish(): EngineSeries[] {
    const out: EngineSeries[] = [];
    for (const e of this.series.values()) out.push(seriesOf(e.model, e.engine, e.instance, e.m, this.starts.get(e.instance) ?? null));
    return out.sort((a, b) => cmp(a.model, b.model) || cmp(a.instance, b.instance) || cmp(a.engine, b.engine));
  }
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function peak(p: { t: number[]; v: number[] }): { v: number; t: number } | null {
  let best: { v: number; t: number } | null = null;
  p.v.forEach((v, i) => {
    if (best === null || v > best.v) best = { v, t: p.t[i] as number };
  });
  return best;
}

function seriesOf(model: string, engine: string, instance: string, m: Metrics, start: number | null): EngineSeries {
  const kv = m.kv.sorted();
  const pre = m.preemptions.sorted();
  const times = [kv, pre, m.running.sorted(), m.waiting.sorted()].flatMap((p) => p.t);
  const k = peak(kv);
  const windows: PreemptionWindow[] = [];
  let preemptions = 0;
  let before = 0;
  if (pre.t.length === 1) {
    // One scrape: the counter is every preemption since the process started.
    const v = pre.v[0] as number;
    if (v > 0)
      windows.push({ from: start !== null && start <= (pre.t[0] as number) ? start : null, until: pre.t[0] as number, preemptions: v });
    preemptions = v;
  } else if (pre.t.length > 1) {
    before = pre.v[0] as number;
    let open: PreemptionWindow | null = null;
    for (let i = 1; i < pre.t.length; i++) {
      const prev = pre.v[i - 1] as number;
      const cur = pre.v[i] as number;
      const delta = cur >= prev ? cur - prev : cur;
      if (delta > 0) {
        preemptions += delta;
        if (open) {
          open.until = pre.t[i] as number;
          open.preemptions += delta;
        } else {
          open = { from: pre.t[i - 1] as number, until: pre.t[i] as number, preemptions: delta };
          windows.push(open);
        }
      } else open = null;
    }
  }
  return {
    model,
    engine,
    instance,
    samples: times.length,
    from: Math.min(...times),
    until: Math.max(...times),
    peakKv: k?.v ?? null,
    peakKvAt: k?.t ?? null,
    peakRunning: peak(m.running.sorted())?.v ?? null,
    peakWaiting: peak(m.waiting.sorted())?.v ?? null,
    preemptions,
    preemptionsBefore: before,
    windows,
  };
}

/** Windows of several series of one seat, by time; overlapping ones are one window. */
export function mergeWindows(all: readonly PreemptionWindow[]): PreemptionWindow[] {
  const sorted = [...all].sort((a, b) => (a.from ?? -Infinity) - (b.from ?? -Infinity) || a.until - b.until);
  const out: PreemptionWindow[] = [];
  for (const w of sorted) {
    const last = out[out.length - 1];
    if (last && (w.from ?? -Infinity) <= last.until) {
      last.until = Math.max(last.until, w.until);
      last.preemptions += w.preemptions;
    } else out.push({ ...w });
  }
  return out;
}
