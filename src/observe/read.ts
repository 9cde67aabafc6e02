// Reads a GPU metrics file whole (a month of per-minute samples for 8 cards is ~20 MB) and picks its
// reader by content: a Prometheus range-query result, Beszel records, or nvidia-smi CSV.
import { readFileSync } from "node:fs";
import { GateError } from "../errors.js";
import { beszelRecords, readBeszel } from "./beszel.js";
import { readNvidiaSmi } from "./nvidia-smi.js";
import { readPrometheus } from "./prometheus.js";
import type { MetricsFormat, MetricsRead } from "./sample.js";

const HINT =
  "give nvidia-smi CSV (--query-gpu=timestamp,index,memory.used,memory.total --format=csv), a Prometheus /api/v1/query_range result of DCGM_FI_DEV_FB_USED or DCGM_FI_DEV_FB_FREE, or Beszel system_stats records";

export function readMetricsFile(file: string): MetricsRead & { format: MetricsFormat } {
  let text: string;
  try {
    text = readFileSync(file, "utf8").replace(/^\uFEFF/, "");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new GateError(
      `cannot read ${file}: ${code === "ENOENT" ? "no such file" : code === "EISDIR" ? "a folder, not a file" : (code ?? (e as Error).message)}`,
      { hint: "name a readable metrics file" },
    );
  }
  if (text.trim() === "") throw new GateError(`${file} is empty`, { hint: HINT });
  try {
    const head = text.trimStart()[0];
    if (head !== "{" && head !== "[") return { ...readNvidiaSmi(text, file), format: "nvidia-smi" };
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch {
      return { ...readBeszel(jsonLines(text, file), file), format: "beszel" };
    }
    if ((doc as { data?: unknown })?.data !== undefined) return { ...readPrometheus(doc, file), format: "prometheus" };
    const records = beszelRecords(doc);
    if (records === null) throw new Error(`${file}: JSON that is neither a Prometheus result nor Beszel records`);
    return {
      ...readBeszel(
        records.map((rec) => ({ rec, line: null })),
        file,
      ),
      format: "beszel",
    };
  } catch (e) {
    if (e instanceof GateError) throw e;
    throw new GateError((e as Error).message, { hint: HINT });
  }
}

function jsonLines(text: string, file: string): { rec: unknown; line: number | null }[] {
  const out: { rec: unknown; line: number | null }[] = [];
  text.split(/\r?\n/).forEach((l, i) => {
    if (l.trim() === "") return;
    try {
      out.push({ rec: JSON.parse(l), line: i + 1 });
    } catch (e) {
      if (out.length === 0) throw new Error(`${file}:${i + 1}: not JSON: ${(e as Error).message}`, { cause: e });
      out.push({ rec: null, line: i + 1 });
    }
  });
  return out;
}
