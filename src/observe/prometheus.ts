// A Prometheus range query's JSON (`/api/v1/query_range`: {"status":"success","data":{"resultType":
// "matrix","result":[{"metric":{...},"values":[[unix seconds, "value"], ...]}]}}) of the DCGM
// exporter's framebuffer fields and/or vLLM's engine metrics (./prom-route.ts says which). A query of an
// expression that drops the metric name (`sum(...)`, `rate(...)`) has no `__name__`: such series are
// left out, and a note says how many.
import { PromRouter } from "./prom-route.js";
import type { MetricsSink } from "./sample.js";

interface Series {
  metric?: Record<string, unknown>;
  values?: unknown;
}

function labelsOf(m: Record<string, unknown> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(m ?? {})) if (typeof v === "string") out[k] = v;
  return out;
}

export function readPrometheus(doc: unknown, file: string, sink: MetricsSink): void {
  const data = (doc as { data?: { resultType?: string; result?: unknown } })?.data;
  if (!data || data.resultType !== "matrix" || !Array.isArray(data.result)) {
    throw new Error(
      `${file}: not a Prometheus range-query result (expected {"status":"success","data":{"resultType":"matrix","result":[...]}} from /api/v1/query_range)`,
    );
  }
  const router = new PromRouter(sink, true);
  let left = 0;
  for (const s of data.result as Series[]) {
    const labels = labelsOf(s?.metric);
    const name = labels.__name__ ?? "";
    if (!PromRouter.reads(name) || !Array.isArray(s.values)) {
      left++;
      continue;
    }
    for (const v of s.values as unknown[]) {
      const pair = v as [unknown, unknown];
      const t = Number(pair?.[0]) * 1000;
      const val = typeof pair?.[1] === "string" ? Number(pair[1]) : NaN;
      if (!Array.isArray(v) || !Number.isFinite(t) || t < 0) {
        sink.problem(null, `${name}{gpu="${labels.gpu ?? ""}"}: not a [time, "value"] pair: ${JSON.stringify(v).slice(0, 40)}`);
        continue;
      }
      router.sample(name, labels, val, Math.round(t), null);
    }
  }
  router.flush();
  if (left > 0) sink.note(`${file}: ${left} series that are not DCGM framebuffer or vLLM engine metrics were left out`);
}
