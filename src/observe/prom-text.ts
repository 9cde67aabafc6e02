// The Prometheus text exposition format (what a /metrics endpoint serves, and what `curl
// …/metrics > file` saves), and OpenMetrics' variant of it:
//
//   # HELP DCGM_FI_DEV_FB_FREE Framebuffer memory free (in MiB).
//   # TYPE DCGM_FI_DEV_FB_FREE gauge
//   DCGM_FI_DEV_FB_FREE{gpu="0",UUID="GPU-…",Hostname="fv-ml1"} 4036
//   vllm:num_preemptions_total{engine="0",model_name="gen-small"} 12.0 1759703160000
//
// A sample is a metric name, optional labels (values escape \\, \" and \n), a value (a float, NaN,
// +Inf, -Inf) and an optional timestamp: milliseconds in Prometheus text (what /federate prints),
// seconds with a fraction in OpenMetrics — told apart by size (1e11 ms is 1973; 1e11 s is year 5138).
// A scrape without timestamps is one instant whose time the file does not hold.
import type { MetricsSink } from "./sample.js";
import { PromRouter } from "./prom-route.js";

export interface PromSample {
  name: string;
  labels: Record<string, string>;
  value: number;
  /** Milliseconds since the epoch, or null when the line has no timestamp. */
  t: number | null;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*/;

function number(text: string): number | null {
  switch (text) {
    case "NaN":
      return NaN;
    case "+Inf":
    case "Inf":
      return Infinity;
    case "-Inf":
      return -Infinity;
    default:
      return /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text) ? Number(text) : null;
  }
}

/** One line: a sample, null for a comment or a blank line, or a sentence saying why it is not one. */
export function parsePromLine(line: string): PromSample | null | string {
  const s = line.trim();
  if (s === "" || s.startsWith("#")) return null;
  const m = NAME.exec(s);
  if (!m) return "not a Prometheus sample: a line starts with a metric name";
  const name = m[0];
  let i = name.length;
  const labels: Record<string, string> = {};
  if (s[i] === "{") {
    i++;
    for (;;) {
      while (s[i] === " ") i++;
      if (s[i] === "}") {
        i++;
        break;
      }
      const ln = LABEL_NAME.exec(s.slice(i));
      if (!ln) return `${name}: a label name expected at column ${i + 1}`;
      i += ln[0].length;
      while (s[i] === " ") i++;
      if (s[i] !== "=" || s[i + 1] !== '"') return `${name}: expected ="…" after the label ${ln[0]}`;
      i += 2;
      let v = "";
      for (;;) {
        const c = s[i];
        if (c === undefined) return `${name}: the value of the label ${ln[0]} is never closed`;
        if (c === '"') break;
        if (c === "\\") {
          const e = s[i + 1];
          v += e === "n" ? "\n" : e === undefined ? "" : e;
          i += 2;
          continue;
        }
        v += c;
        i++;
      }
      i++;
      labels[ln[0]] = v;
      while (s[i] === " ") i++;
      if (s[i] === ",") i++;
      else if (s[i] !== "}") return `${name}: expected , or } after the label ${ln[0]}`;
    }
  }
  const rest = s.slice(i).trim().split(/\s+/);
  if (rest.length < 1 || rest.length > 2 || rest[0] === "") return `${name}: expected a value and an optional timestamp`;
  const value = number(rest[0] as string);
  if (value === null) return `${name}: not a number: ${JSON.stringify((rest[0] as string).slice(0, 40))}`;
  let t: number | null = null;
  if (rest[1] !== undefined) {
    const raw = number(rest[1]);
    if (raw === null || !Number.isFinite(raw) || raw < 0) return `${name}: not a timestamp: ${JSON.stringify(rest[1].slice(0, 40))}`;
    t = raw < 1e11 ? Math.round(raw * 1000) : Math.round(raw);
  }
  return { name, labels, value, t };
}

/** A whole text file's lines, one at a time, into the router. */
export class PromTextLines {
  readonly router: PromRouter;
  samples = 0;

  constructor(private readonly sink: MetricsSink) {
    this.router = new PromRouter(sink);
  }

  line(text: string, n: number): void {
    // Most lines of a full scrape are metrics kvgate does not read: the name is checked before parsing.
    const name = NAME.exec(text.trimStart());
    if (name && !PromRouter.reads(name[0])) {
      this.router.skipped++;
      return;
    }
    const p = parsePromLine(text);
    if (p === null) return;
    if (typeof p === "string") {
      this.sink.problem(n, p);
      return;
    }
    this.samples++;
    this.router.sample(p.name, p.labels, p.value, p.t, n);
  }
}
