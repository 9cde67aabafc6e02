// Which Prometheus series kvgate reads, from either form (a range query's JSON, or the text a /metrics
// endpoint serves), and what each is:
//
// - the DCGM exporter's framebuffer fields, in MiB, labelled `gpu` (the index) and `Hostname`:
//   DCGM_FI_DEV_FB_USED, _FREE, _RESERVED and _TOTAL. A card's total is _TOTAL when exported, else
//   used + free (+ reserved): what nvidia-smi calls memory.total.
// - vLLM's engine metrics (vllm/v1/metrics/loggers.py; labels `model_name`, `engine`), as their wire
//   names: vllm:kv_cache_usage_perc (a fraction, 1 = full; vllm:gpu_cache_usage_perc before v1),
//   vllm:num_requests_running / _waiting, vllm:num_preemptions_total (a counter: prometheus_client adds
//   `_total`), and the process's process_start_time_seconds (when the counters started).
import { MiB } from "../units/bytes.js";
import type { EngineMetric, GpuReading, MetricsSink } from "./sample.js";

type FbField = "used" | "free" | "reserved" | "total";

const FB: Record<string, FbField> = {
  DCGM_FI_DEV_FB_USED: "used",
  DCGM_FI_DEV_FB_FREE: "free",
  DCGM_FI_DEV_FB_RESERVED: "reserved",
  DCGM_FI_DEV_FB_TOTAL: "total",
};

const ENGINE: Record<string, EngineMetric> = {
  "vllm:kv_cache_usage_perc": "kv",
  "vllm:gpu_cache_usage_perc": "kv",
  "vllm:num_requests_running": "running",
  "vllm:num_requests_waiting": "waiting",
  "vllm:num_preemptions_total": "preemptions",
  "vllm:num_preemptions": "preemptions",
  process_start_time_seconds: "start",
};

interface Pending {
  host: string | null;
  index: number;
  t: number;
  line: number | null;
  used: number | null;
  free: number | null;
  reserved: number | null;
  total: number | null;
}

/**
 * Routes samples by metric name. The framebuffer fields of one card at one instant arrive as separate
 * samples (separate series in JSON, separate lines in text): in text they are held per card until a
 * sample of that card at another instant comes (or `flush`), then handed on as one reading.
 */
export class PromRouter {
  private readonly pending = new Map<string, Pending>();
  /** Samples of a metric kvgate does not read, and DCGM samples without a time (a single scrape). */
  skipped = 0;
  untimedGpu = 0;
  engineSamples = 0;
  gpuSamples = 0;

  /** `holdAll`: a range query's JSON, where each field of a card is a separate series over the whole
   *  window: every reading is held until `flush` (the document is in memory anyway). */
  constructor(
    private readonly sink: MetricsSink,
    private readonly holdAll = false,
  ) {}

  /** True when the name is one kvgate reads. */
  static reads(name: string): boolean {
    return name in FB || name in ENGINE;
  }

  sample(name: string, labels: Readonly<Record<string, string>>, value: number, t: number | null, line: number | null): void {
    const fb = FB[name];
    if (fb !== undefined) {
      this.fb(fb, name, labels, value, t, line);
      return;
    }
    const metric = ENGINE[name];
    if (metric === undefined) {
      this.skipped++;
      return;
    }
    const bounded = metric === "kv" ? value >= 0 && value <= 1 : value >= 0;
    if (!Number.isFinite(value) || !bounded) {
      this.sink.problem(line, `${name}: ${metric === "kv" ? "not a fraction from 0 to 1" : "not a count ≥ 0"}: ${value}`);
      return;
    }
    this.engineSamples++;
    this.sink.engine({
      model: labels.model_name ?? "",
      engine: labels.engine ?? "",
      instance: labels.instance ?? "",
      metric,
      t,
      v: value,
      line,
    });
  }

  private fb(
    field: FbField,
    name: string,
    labels: Readonly<Record<string, string>>,
    value: number,
    t: number | null,
    line: number | null,
  ): void {
    const gpuLabel = labels.gpu ?? "";
    if (!/^\d{1,4}$/.test(gpuLabel)) {
      this.sink.problem(line, `${name}: no gpu label with a card index (got ${JSON.stringify(gpuLabel.slice(0, 40))})`);
      return;
    }
    if (!Number.isFinite(value) || value < 0) {
      this.sink.problem(line, `${name}{gpu="${gpuLabel}"}: not MiB ≥ 0: ${value}`);
      return;
    }
    if (t === null) {
      this.untimedGpu++;
      return;
    }
    this.gpuSamples++;
    const index = Number(gpuLabel);
    const host = labels.Hostname ?? labels.hostname ?? null;
    const key = this.holdAll ? `${host ?? ""}\u0000${index}\u0000${t}` : `${host ?? ""}\u0000${index}`;
    let p = this.pending.get(key);
    if (p && p.t !== t) {
      this.emit(p);
      p = undefined;
    }
    if (!p) {
      p = { host, index, t, line, used: null, free: null, reserved: null, total: null };
      this.pending.set(key, p);
    }
    p[field] = Math.round(value * MiB);
  }

  /** Hands on every reading still held. */
  flush(): void {
    for (const p of this.pending.values()) this.emit(p);
    this.pending.clear();
  }

  private emit(p: Pending): void {
    if (p.used === null && p.free === null) return;
    const total = p.total ?? (p.used !== null && p.free !== null ? p.used + p.free + (p.reserved ?? 0) : null);
    const r: GpuReading = { host: p.host, index: p.index, t: p.t, used: p.used, free: p.free, total };
    this.sink.gpu(r, p.line);
  }
}
