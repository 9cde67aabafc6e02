// The monitoring formats `observe` reads, written as their tools write them (not from kvgate's examples):
// - nvidia-smi --query-gpu=timestamp,index,memory.used,memory.total --format=csv: a header naming the
//   columns with their units, `YYYY/MM/DD hh:mm:ss.mmm` local times, "1234 MiB" values;
// - the DCGM exporter (dcgm-exporter's default counters): DCGM_FI_DEV_FB_FREE / _USED in MiB, labels
//   gpu, UUID, pci_bus_id, device, modelName, Hostname, DCGM_FI_DRIVER_VERSION — as Prometheus text
//   (a scrape of :9400/metrics, or /federate with millisecond timestamps) and as a range query's JSON;
// - Beszel's hub: PocketBase collection system_stats (id, system, stats, type, created, updated), stats
//   per GPU under g.<id> with n, mu, mt, u (mu and mt tagged omitempty,omitzero in the agent's GPUData),
//   as the API lists it (?expand=system) and as `sqlite3 -json` / `sqlite3 -header -csv` export it
//   (the JSON column as text, PocketBase's `2026-10-05 22:26:00.000Z` dates);
// - vLLM's /metrics (vllm/v1/metrics/loggers.py: labels engine and model_name; prometheus_client
//   suffixes counters with _total and adds _created).

const MIN = 60_000;

export function smiStamp(ms: number): string {
  return new Date(ms).toISOString().replace("T", " ").replace(/-/g, "/").replace("Z", "");
}

export const SMI_HEADER = "timestamp, index, memory.used [MiB], memory.total [MiB]";

/** nvidia-smi CSV lines: one per (time, card), `used` in MiB per card. */
export function smiCsv(start: number, used: number[][], totalMiB = 97_887, header = true): string {
  const lines = header ? [SMI_HEADER] : [];
  used.forEach((perCard, k) => perCard.forEach((u, i) => lines.push(`${smiStamp(start + k * MIN)}, ${i}, ${u} MiB, ${totalMiB} MiB`)));
  return lines.join("\n") + "\n";
}

const dcgmLabels = (gpu: number, host: string) =>
  `gpu="${gpu}",UUID="GPU-5c1f0a3e-77b2-4d8e-9a61-0c2f${String(gpu).padStart(8, "0")}",pci_bus_id="00000000:0${gpu + 1}:00.0",device="nvidia${gpu}",modelName="NVIDIA RTX PRO 6000 Blackwell Server Edition",Hostname="${host.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}",DCGM_FI_DRIVER_VERSION="575.57.08"`;

/** One scrape of the DCGM exporter's /metrics (no timestamps), as `curl :9400/metrics` saves it. */
export function dcgmScrape(host: string, cards: { used: number; free: number }[]): string {
  const out = [
    "# HELP DCGM_FI_DEV_SM_CLOCK SM clock frequency (in MHz).",
    "# TYPE DCGM_FI_DEV_SM_CLOCK gauge",
    ...cards.map((_, i) => `DCGM_FI_DEV_SM_CLOCK{${dcgmLabels(i, host)}} 2617`),
    "# HELP DCGM_FI_DEV_FB_FREE Framebuffer memory free (in MiB).",
    "# TYPE DCGM_FI_DEV_FB_FREE gauge",
    ...cards.map((c, i) => `DCGM_FI_DEV_FB_FREE{${dcgmLabels(i, host)}} ${c.free}`),
    "# HELP DCGM_FI_DEV_FB_USED Framebuffer memory used (in MiB).",
    "# TYPE DCGM_FI_DEV_FB_USED gauge",
    ...cards.map((c, i) => `DCGM_FI_DEV_FB_USED{${dcgmLabels(i, host)}} ${c.used}`),
  ];
  return out.join("\n") + "\n";
}

/** Prometheus's /federate output: the same lines with millisecond timestamps, one block per scrape. */
export function dcgmFederate(host: string, scrapes: { t: number; cards: { used: number; free: number }[] }[]): string {
  const out = ["# TYPE DCGM_FI_DEV_FB_FREE untyped", "# TYPE DCGM_FI_DEV_FB_USED untyped"];
  for (const s of scrapes) {
    s.cards.forEach((c, i) => out.push(`DCGM_FI_DEV_FB_FREE{${dcgmLabels(i, host)},instance="${host}:9400",job="dcgm"} ${c.free} ${s.t}`));
    s.cards.forEach((c, i) => out.push(`DCGM_FI_DEV_FB_USED{${dcgmLabels(i, host)},instance="${host}:9400",job="dcgm"} ${c.used} ${s.t}`));
  }
  return out.join("\n") + "\n";
}

/** /api/v1/query_range of {__name__=~"DCGM_FI_DEV_FB_(USED|FREE)"}: `values` as [unix seconds, "MiB"]. */
export function dcgmRange(
  series: { name: "DCGM_FI_DEV_FB_USED" | "DCGM_FI_DEV_FB_FREE"; gpu: number; host: string; values: [number, number][] }[],
): string {
  return JSON.stringify({
    status: "success",
    data: {
      resultType: "matrix",
      result: series.map((s) => ({
        metric: {
          __name__: s.name,
          DCGM_FI_DRIVER_VERSION: "575.57.08",
          Hostname: s.host,
          UUID: `GPU-5c1f0a3e-77b2-4d8e-9a61-0c2f${String(s.gpu).padStart(8, "0")}`,
          device: `nvidia${s.gpu}`,
          gpu: String(s.gpu),
          instance: "10.0.0.11:9400",
          job: "dcgm-exporter",
          modelName: "NVIDIA RTX PRO 6000 Blackwell Server Edition",
          pci_bus_id: `00000000:0${s.gpu + 1}:00.0`,
        },
        values: s.values.map(([t, v]) => [t / 1000, String(v)]),
      })),
    },
  });
}

export interface BeszelGpu {
  /** Beszel's unit (MiB / 1.024); omitted (undefined) as the agent omits a zero. */
  mu?: number;
  mt?: number;
}

/** A system_stats record as PocketBase stores it; `stats` as an object (API) or its JSON text (SQLite). */
export function beszelRecord(id: number, created: number, gpus: BeszelGpu[], o: { asText?: boolean; type?: string; name?: string } = {}) {
  const g: Record<string, unknown> = {};
  gpus.forEach((x, i) => {
    const gpu: Record<string, unknown> = { n: "RTX PRO 6000", u: 37.5, p: 212.4 };
    if (x.mu !== undefined && x.mu !== 0) gpu.mu = x.mu;
    if (x.mt !== undefined && x.mt !== 0) gpu.mt = x.mt;
    g[String(i)] = gpu;
  });
  const stats = { cpu: 12.3, m: 251.6, mu: 88.2, mp: 35.1, mb: 40.2, d: 1863, du: 711, dp: 38.2, dr: 0.1, dw: 1.4, ns: 0.3, nr: 0.9, g };
  const when = new Date(created).toISOString().replace("T", " ");
  const rec: Record<string, unknown> = {
    id: `r${String(id).padStart(14, "0")}`,
    system: "k4w1x8p2q9z7m3n",
    stats: o.asText ? JSON.stringify(stats) : stats,
    type: o.type ?? "1m",
    created: when,
    updated: when,
  };
  if (o.name) rec.expand = { system: { id: "k4w1x8p2q9z7m3n", name: o.name } };
  return rec;
}

/** `sqlite3 -header -csv data.db "select * from system_stats"`: RFC 4180 quoting of the JSON text. */
export function beszelSqliteCsv(records: ReturnType<typeof beszelRecord>[]): string {
  const q = (v: unknown) => {
    const s = String(v);
    return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  return (
    [
      "id,system,stats,type,created,updated",
      ...records.map((r) => [r.id, r.system, r.stats, r.type, r.created, r.updated].map(q).join(",")),
    ].join("\n") + "\n"
  );
}

/** One scrape of vLLM's /metrics (a v1 engine), as `curl :8000/metrics` saves it. */
export function vllmScrape(
  model: string,
  o: { kv: number; running: number; waiting: number; preemptions: number; startSeconds?: number },
): string {
  const l = `engine="0",model_name="${model}"`;
  return (
    [
      "# HELP python_gc_objects_collected_total Objects collected during gc",
      "# TYPE python_gc_objects_collected_total counter",
      'python_gc_objects_collected_total{generation="0"} 12873.0',
      ...(o.startSeconds === undefined
        ? []
        : [
            "# HELP process_start_time_seconds Start time of the process since unix epoch in seconds.",
            "# TYPE process_start_time_seconds gauge",
            `process_start_time_seconds ${o.startSeconds}`,
          ]),
      "# HELP vllm:num_requests_running Number of requests in model execution batches.",
      "# TYPE vllm:num_requests_running gauge",
      `vllm:num_requests_running{${l}} ${o.running.toFixed(1)}`,
      "# HELP vllm:num_requests_waiting Number of requests waiting to be processed.",
      "# TYPE vllm:num_requests_waiting gauge",
      `vllm:num_requests_waiting{${l}} ${o.waiting.toFixed(1)}`,
      "# HELP vllm:kv_cache_usage_perc KV-cache usage. 1 means 100 percent usage.",
      "# TYPE vllm:kv_cache_usage_perc gauge",
      `vllm:kv_cache_usage_perc{${l}} ${o.kv}`,
      "# HELP vllm:num_preemptions_total Cumulative number of preemption from the engine.",
      "# TYPE vllm:num_preemptions_total counter",
      `vllm:num_preemptions_total{${l}} ${o.preemptions.toFixed(1)}`,
      "# HELP vllm:num_preemptions_created Cumulative number of preemption from the engine.",
      "# TYPE vllm:num_preemptions_created gauge",
      `vllm:num_preemptions_created{${l}} 1.7596896e+09`,
      "# HELP vllm:time_to_first_token_seconds Histogram of time to first token in seconds.",
      "# TYPE vllm:time_to_first_token_seconds histogram",
      `vllm:time_to_first_token_seconds_bucket{${l},le="0.001"} 0.0`,
    ].join("\n") + "\n"
  );
}

/** /api/v1/query_range of vLLM's metrics for one seat: each metric's [ms, value] points. */
export function vllmRange(
  model: string,
  metrics: Partial<Record<"kv" | "running" | "waiting" | "preemptions", [number, number][]>>,
  instance = "fv-ml1:8001",
): string {
  const names = {
    kv: "vllm:kv_cache_usage_perc",
    running: "vllm:num_requests_running",
    waiting: "vllm:num_requests_waiting",
    preemptions: "vllm:num_preemptions_total",
  };
  return JSON.stringify({
    status: "success",
    data: {
      resultType: "matrix",
      result: Object.entries(metrics).map(([k, values]) => ({
        metric: { __name__: names[k as keyof typeof names], engine: "0", instance, job: "vllm", model_name: model },
        values: values.map(([t, v]) => [t / 1000, String(v)]),
      })),
    },
  });
}
