// What the metrics readers hand on, one reading at a time (no file is held whole, no object is kept per
// reading): GPU memory readings for the cards, and vLLM's own engine metrics for the seats.

/** One GPU memory reading, in bytes. `host` is null when the source does not say (nvidia-smi's CSV). */
export interface GpuReading {
  host: string | null;
  index: number;
  /** Milliseconds since the epoch (UTC). */
  t: number;
  /** null when the source gives only free memory (DCGM's FB_FREE alone): used = total − free. */
  used: number | null;
  /** What the source says is free, when it says (DCGM's FB_FREE). */
  free: number | null;
  /** The card's total as the source reports it (nvidia-smi memory.total, Beszel mt, DCGM used + free + reserved). */
  total: number | null;
}

/** The vLLM metrics kvgate reads (contract: the engines' own KV evidence). */
export type EngineMetric = "kv" | "running" | "waiting" | "preemptions" | "start";

/** One vLLM metric sample: a series is one engine of one served model on one instance. */
export interface EngineSample {
  /** The served model name (vLLM's `model_name` label). */
  model: string;
  /** vLLM's `engine` label (the data-parallel rank), "" when absent. */
  engine: string;
  /** Prometheus's `instance` label (host:port), "" when absent. */
  instance: string;
  metric: EngineMetric;
  /** null for a /metrics scrape without timestamps. */
  t: number | null;
  v: number;
  line: number | null;
}

export interface MetricsSink {
  gpu(r: GpuReading, line: number | null): void;
  engine(s: EngineSample): void;
  /** A reading that cannot be used: skipped, listed with its file and line. */
  problem(line: number | null, reason: string): void;
  note(text: string): void;
}

export type MetricsFormat = "nvidia-smi" | "prometheus" | "prometheus-text" | "beszel";

export interface MetricsProblem {
  file: string;
  line: number | null;
  reason: string;
}
