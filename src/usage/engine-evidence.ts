// What vLLM's own metrics said of each seat, for `usage` to put beside its spend-log advice: from
// --metrics (a range query or /metrics scrape of vllm:*, read by ../observe/) or from the observed
// file kvgate.yaml names (`observe --write` recorded each seat's preemptions and its KV then).
import type { ObservedRead } from "../parse/observed.js";
import type { SeatObservation } from "../model/observations.js";
import type { EngineEvidence } from "./recommend.js";

export function evidenceFromObserved(file: string, read: ObservedRead | null): Map<string, EngineEvidence> {
  const out = new Map<string, EngineEvidence>();
  if (!read?.ok) return out;
  for (const s of read.value.seats ?? []) {
    out.set(s.service, {
      source: file,
      preemptions: s.preemptions,
      windows: s.windows ?? [],
      peak_kv_usage: s.peak_kv_usage ?? null,
      kv_bytes: s.kv_bytes ?? null,
    });
  }
  return out;
}

export function evidenceFromSeats(files: readonly string[], seats: readonly SeatObservation[]): Map<string, EngineEvidence> {
  const out = new Map<string, EngineEvidence>();
  for (const s of seats) {
    if (s.service === null) continue;
    out.set(s.service, {
      source: files.join(", "),
      preemptions: s.preemptions,
      windows: s.preemption_windows,
      peak_kv_usage: s.peak_kv_usage,
      kv_bytes: s.kv_bytes,
    });
  }
  return out;
}
