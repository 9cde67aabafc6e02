// What `observe` saw of a vLLM seat from the engine's own metrics (its KV use and preemptions): written
// under `seats:` of the observed file and read back by `usage` (plain data, shared by both features).

export interface SeatObservation {
  /** The service, or the model_name when no service of the fleet serves it. */
  name: string;
  service: string | null;
  models: string[];
  series: number;
  samples: number;
  from: string;
  until: string;
  /** The share of KV blocks in use at the fullest (0..1). */
  peak_kv_usage: number | null;
  peak_kv_at: string | null;
  /** The seat's KV from the working tree (its pin, or vLLM's estimate), when known. */
  kv_bytes: number | null;
  peak_kv_bytes: number | null;
  peak_running: number | null;
  peak_waiting: number | null;
  preemptions: number;
  preemptions_before: number;
  preemption_windows: { from: string | null; until: string; preemptions: number }[];
  notes: string[];
}
