// A metrics file: which kind it is, picked from its first 64 KiB, then read into a sink one reading at
// a time. nvidia-smi CSV, Prometheus text and Beszel JSON lines are streamed line by line; a JSON
// document (a Prometheus range query, Beszel's API or `sqlite3 -json`) and Beszel's CSV are parsed
// whole, up to WHOLE_CAP (a month of per-minute DCGM samples for 8 cards is ~20 MB).
import { statSync } from "node:fs";
import { parse as csvParse } from "csv-parse/sync";
import { GateError } from "../errors.js";
import { cannotRead, eachLine, headOf, openFile } from "../load/lines.js";
import { beszelRecords, looksLikeBeszel, readBeszel, type BeszelRecord } from "./beszel.js";
import { NvidiaSmiLines } from "./nvidia-smi.js";
import { readPrometheus } from "./prometheus.js";
import { PromTextLines } from "./prom-text.js";
import type { MetricsFormat, MetricsSink } from "./sample.js";

const METRICS_HINT =
  "give nvidia-smi CSV (--query-gpu=timestamp,index,memory.used,memory.total " +
  "--format=csv), a Prometheus /api/v1/query_range result of the " +
  "DCGM exporter's DCGM_FI_DEV_FB_USED/DCGM_FI_DEV_FB_FREE or of vLLM's " +
  "vllm:* metrics, a vLLM /metrics scrape, or Beszel system_stats records";

/** JSON documents and Beszel CSV are parsed whole: past this, the file is refused with what to do instead. */
const WHOLE_CAP = 512 * 1024 * 1024;

type Shape = "lines" | "json" | "jsonl" | "csv";

export interface Sniffed {
  file: string;
  format: MetricsFormat;
  shape: Shape;
  /** The file's cards carry no host name (nvidia-smi; Beszel records without the system's name). */
  hostless: boolean;
}

const PROM_SAMPLE = /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{.*\})?[ \t]+[-+.0-9NaInf]/;

function firstLine(head: string): string {
  const trimmed = head.replace(/^\s+/, "");
  const nl = trimmed.indexOf("\n");
  return (nl === -1 ? trimmed : trimmed.slice(0, nl)).replace(/\r$/, "");
}

/** The kind of a metrics file, from its head. */
export async function sniffMetrics(file: string): Promise<Sniffed> {
  const head = await headOf(file, 64 * 1024, "name a readable metrics file");
  if (head.trim() === "") throw new GateError(`${file} is empty`, { hint: METRICS_HINT });
  const line = firstLine(head);
  const c = line[0];
  if (c === "{" || c === "[") {
    let rec: unknown = undefined;
    try {
      rec = JSON.parse(line);
    } catch {
      // a pretty-printed document, or one longer than the head: parsed whole
    }
    if (rec !== undefined && !Array.isArray(rec) && looksLikeBeszel(rec)) {
      const named = typeof (rec as { expand?: { system?: { name?: unknown } } }).expand?.system?.name === "string";
      return { file, format: "beszel", shape: "jsonl", hostless: !named && !("system_name" in (rec as object)) };
    }
    // The document is parsed whole later; its kind, for the report, from its keys.
    const prometheus = c === "{" && /"(resultType|data)"\s*:/.test(head) && !/"items"\s*:/.test(head.slice(0, 200));
    return { file, format: prometheus ? "prometheus" : "beszel", shape: "json", hostless: false };
  }
  if (line.startsWith("#") || PROM_SAMPLE.test(line)) return { file, format: "prometheus-text", shape: "lines", hostless: false };
  const cols = line.split(",").map((s) => s.trim().replace(/^"|"$/g, ""));
  if (cols.includes("stats") && cols.includes("created")) {
    return { file, format: "beszel", shape: "csv", hostless: !cols.includes("system_name") };
  }
  return { file, format: "nvidia-smi", shape: "lines", hostless: true };
}

function wholeText(file: string): Promise<string> {
  const size = (() => {
    try {
      return statSync(file).size;
    } catch (e) {
      throw cannotRead(file, e);
    }
  })();
  if (size > WHOLE_CAP) {
    throw new GateError(
      `${file}: ${Math.round(size / 1024 / 1024)} MiB of JSON: above the ${WHOLE_CAP / 1024 / 1024} MiB kvgate parses whole`,
      {
        hint: "query a shorter range per file (several --metrics files add up), or export nvidia-smi CSV, which is streamed",
      },
    );
  }
  return openFile(file).then(async (fh) => {
    try {
      return (await fh.readFile("utf8")).replace(/^\uFEFF/, "");
    } catch (e) {
      throw cannotRead(file, e);
    } finally {
      await fh.close();
    }
  });
}

/** Reads the file into the sink; a file of the wrong kind throws a GateError naming it. */
export async function readMetrics(s: Sniffed, sink: MetricsSink): Promise<void> {
  const { file } = s;
  try {
    switch (s.shape) {
      case "lines":
        if (s.format === "nvidia-smi") {
          const smi = new NvidiaSmiLines(file, sink);
          await eachLine(file, (text, n) => smi.line(text, n));
        } else await readPromText(file, sink);
        return;
      case "jsonl": {
        const records: BeszelRecord[] = [];
        await eachLine(file, (text, n) => {
          if (text.trim() === "") return;
          try {
            records.push({ rec: JSON.parse(text), line: n });
          } catch (e) {
            sink.problem(n, `not JSON: ${(e as Error).message.slice(0, 80)}`);
          }
        });
        readBeszel(records, file, sink);
        return;
      }
      case "json": {
        let doc: unknown;
        try {
          doc = JSON.parse(await wholeText(file));
        } catch (e) {
          if (e instanceof GateError) throw e;
          throw new Error(`${file}: not JSON: ${(e as Error).message.slice(0, 120)}`, { cause: e });
        }
        if ((doc as { data?: unknown })?.data !== undefined) {
          readPrometheus(doc, file, sink);
          return;
        }
        const records = beszelRecords(doc);
        if (records === null) throw new Error(`${file}: JSON that is neither a Prometheus range-query result nor Beszel records`);
        readBeszel(
          records.map((rec) => ({ rec, line: null })),
          file,
          sink,
        );
        return;
      }
      case "csv": {
        const rows: { record: Record<string, string>; info: { lines: number } }[] = csvParse(await wholeText(file), {
          columns: true,
          info: true,
          skip_empty_lines: true,
          relax_column_count: true,
        });
        readBeszel(
          rows.map((r) => ({ rec: r.record, line: r.info.lines })),
          file,
          sink,
        );
        return;
      }
      default:
        s.shape satisfies never;
    }
  } catch (e) {
    if (e instanceof GateError) throw e;
    throw new GateError((e as Error).message, { hint: METRICS_HINT });
  }
}

async function readPromText(file: string, sink: MetricsSink): Promise<void> {
  const text = new PromTextLines(sink);
  await eachLine(file, (line, n) => text.line(line, n));
  text.router.flush();
  const r = text.router;
  if (r.untimedGpu > 0 && r.gpuSamples === 0) {
    const gpuOnly = r.engineSamples === 0;
    const message = `${file} is Prometheus text from one /metrics scrape: ${r.untimedGpu} DCGM samples without a time, one instant, not a series`;
    const hint =
      "query Prometheus over a range instead and save the JSON: curl -G " +
      "http://PROMETHEUS:9090/api/v1/query_range --data-urlencode 'query={__name__=~\"DCGM_FI_DEV_FB_(USED|FREE)\"}' " +
      "-d start=2026-10-01T00:00:00Z -d end=2026-10-08T00:00:00Z -d step=60 > gpu.json";
    if (gpuOnly) throw new GateError(message, { hint });
    sink.note(`${message}: left out (${hint})`);
  }
  if (r.gpuSamples === 0 && r.engineSamples === 0 && r.untimedGpu === 0)
    sink.note(`${file}: Prometheus text without DCGM framebuffer or vLLM engine metrics (${r.skipped} other samples)`);
}
