// vLLM's engine series gathered per seat: a series belongs to the service whose name its `model_name`
// is, or that serves it under that name (--served-model-name), or lists it in kvgate.yaml
// usage.models, or runs that MODEL; else it is shown under its model_name alone. Per seat: the peak KV
// use (and what that is in bytes of the seat's KV, when kvgate knows the KV), the most requests running
// and waiting, and every preemption window, the windows of its engines merged.
import { mergeWindows, type EngineSeries } from "./engine.js";
import type { SeatObservation } from "../model/observations.js";

export type { SeatObservation };

export interface SeatLookup {
  /** The service a served model name belongs to, or null. */
  serviceOf(model: string): string | null;
  /** The service's KV in bytes (per GPU), when known. */
  kvOf(service: string): number | null;
}

const iso = (ms: number): string => new Date(ms).toISOString();

export function seatObservations(series: readonly EngineSeries[], look: SeatLookup): SeatObservation[] {
  const groups = new Map<string, EngineSeries[]>();
  for (const s of series) {
    const name = look.serviceOf(s.model) ?? s.model;
    groups.set(name, [...(groups.get(name) ?? []), s]);
  }
  const out: SeatObservation[] = [];
  for (const [name, list] of groups) {
    const service = look.serviceOf(list[0]?.model ?? "") === null ? null : name;
    let peak: EngineSeries | null = null;
    for (const s of list) if (s.peakKv !== null && (peak === null || s.peakKv > (peak.peakKv as number))) peak = s;
    const maxOf = (f: (s: EngineSeries) => number | null): number | null => {
      const v = list.map(f).filter((x): x is number => x !== null);
      return v.length === 0 ? null : Math.max(...v);
    };
    const kv = service === null ? null : look.kvOf(service);
    const notes: string[] = [];
    if (service === null)
      notes.push(
        `no service of the fleet serves model_name ${JSON.stringify(name)}: name the service so, set --served-model-name, or list it under usage.models`,
      );
    const before = list.reduce((n, s) => n + s.preemptionsBefore, 0);
    if (before > 0) notes.push(`${before} preemptions before the first sample (the counter counts from the engine's start)`);
    const windows = mergeWindows(list.flatMap((s) => s.windows));
    out.push({
      name,
      service,
      models: [...new Set(list.map((s) => s.model))].sort(),
      series: list.length,
      samples: list.reduce((n, s) => n + s.samples, 0),
      from: iso(Math.min(...list.map((s) => s.from))),
      until: iso(Math.max(...list.map((s) => s.until))),
      peak_kv_usage: peak?.peakKv ?? null,
      peak_kv_at: peak?.peakKvAt === null || peak === null ? null : iso(peak.peakKvAt),
      kv_bytes: kv,
      peak_kv_bytes: kv === null || peak?.peakKv == null ? null : Math.round(kv * peak.peakKv),
      peak_running: maxOf((s) => s.peakRunning),
      peak_waiting: maxOf((s) => s.peakWaiting),
      preemptions: list.reduce((n, s) => n + s.preemptions, 0),
      preemptions_before: before,
      preemption_windows: windows.map((w) => ({
        from: w.from === null ? null : iso(w.from),
        until: iso(w.until),
        preemptions: w.preemptions,
      })),
      notes,
    });
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
