// One GPU memory reading, as the three sources give it, in bytes. `host` is null when the source does
// not say (nvidia-smi's CSV); the command fills it from --host or the fleet's only host.
export interface RawSample {
  host: string | null;
  index: number;
  /** Milliseconds since the epoch (UTC). */
  t: number;
  used: number;
  /** What the source says is free, when it says (DCGM's FB_FREE). */
  free: number | null;
  /** The card's total as the source reports it (nvidia-smi memory.total, Beszel mt, DCGM used + free). */
  total: number | null;
}

interface MetricsProblem {
  file: string;
  line: number | null;
  reason: string;
}

export interface MetricsRead {
  samples: RawSample[];
  problems: MetricsProblem[];
  notes: string[];
}

export type MetricsFormat = "nvidia-smi" | "prometheus" | "beszel";
