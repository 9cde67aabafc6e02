// `nvidia-smi --query-gpu=timestamp,index,memory.used,memory.total --format=csv` (with or without
// `,noheader` and `,nounits`), as written by `-l 60 >> file` or a cron job. Values are MiB ("1234 MiB",
// or bare numbers with nounits); "[N/A]" readings are skipped and counted. nvidia-smi prints local time
// without a zone (`2026/10/05 22:26:01.123`): it is read as UTC — only the intervals matter here (the
// 10 minutes after a boot), and the chart labels the times as written.
import { MiB } from "../units/bytes.js";
import { parseTimestamp } from "../usage/timestamps.js";
import type { MetricsRead } from "./sample.js";

const DEFAULT_COLUMNS = ["timestamp", "index", "memory.used", "memory.total"];

function mib(text: string): number | null {
  const m = /^(\d+(?:\.\d+)?)\s*(MiB)?$/i.exec(text.trim());
  return m ? Math.round(Number(m[1]) * MiB) : null;
}

export function readNvidiaSmi(text: string, file: string): MetricsRead {
  const out: MetricsRead = { samples: [], problems: [], notes: [] };
  const lines = text.split(/\r?\n/);
  let columns = DEFAULT_COLUMNS;
  let first = 0;
  if (/timestamp/i.test(lines[0] ?? "")) {
    columns = (lines[0] as string).replace(/^\uFEFF/, "").split(",").map((c) => c.trim().replace(/\s*\[.*\]$/, "").toLowerCase());
    first = 1;
  }
  const col = (name: string): number => columns.indexOf(name);
  const [ti, ii, ui, tt, fi] = [col("timestamp"), col("index"), col("memory.used"), col("memory.total"), col("memory.free")];
  if (ti < 0 || ii < 0 || ui < 0) {
    throw new Error(`${file}:1: the nvidia-smi header lacks ${[ti < 0 ? "timestamp" : "", ii < 0 ? "index" : "", ui < 0 ? "memory.used" : ""].filter(Boolean).join(", ")}: query --query-gpu=timestamp,index,memory.used,memory.total --format=csv`);
  }
  for (let n = first; n < lines.length; n++) {
    const line = lines[n] as string;
    if (line.trim() === "") continue;
    const f = line.split(",").map((s) => s.trim());
    const bad = (reason: string): void => {
      out.problems.push({ file, line: n + 1, reason });
    };
    if (f.length < columns.length) {
      bad(`expected ${columns.length} columns, found ${f.length}`);
      continue;
    }
    const t = parseTimestamp((f[ti] as string).replace(/^(\d{4})\/(\d{2})\/(\d{2})/, "$1-$2-$3"));
    if (t === null) {
      bad(`not a timestamp: "${f[ti]}"`);
      continue;
    }
    const index = Number(f[ii]);
    if (!Number.isInteger(index) || index < 0) {
      bad(`not a GPU index: "${f[ii]}"`);
      continue;
    }
    const used = mib(f[ui] as string);
    if (used === null) {
      bad(`memory.used is not MiB: "${f[ui]}"`);
      continue;
    }
    const total = tt < 0 ? null : mib(f[tt] as string);
    const free = fi < 0 ? null : mib(f[fi] as string);
    out.samples.push({ host: null, index, t, used, free, total });
  }
  return out;
}
