// `nvidia-smi --query-gpu=timestamp,index,memory.used,memory.total --format=csv` (with or without
// `,noheader` and `,nounits`), as written by `-l 60 >> file` or a cron job. Values are MiB ("1234 MiB",
// or bare numbers with nounits); "[N/A]" readings are skipped and counted. nvidia-smi prints local time
// without a zone (`2026/10/05 22:26:01.123`): it is read as UTC — only the intervals matter here (the
// 10 minutes after a boot), and the chart labels the times as written.
import { MiB } from "../units/bytes.js";
import { parseTimestamp } from "../units/timestamps.js";
import type { MetricsRead } from "./sample.js";

const DEFAULT_COLUMNS = ["timestamp", "index", "memory.used", "memory.total"];

/** "1234 MiB" or "1234" (nounits) → bytes; null for "[N/A]" and anything else. */
function mib(text: string): number | null {
  let t = text.trim();
  if (t.endsWith("MiB")) t = t.slice(0, -3).trimEnd();
  if (t === "" || !/^\d+(?:\.\d+)?$/.test(t)) return null;
  return Math.round(Number(t) * MiB);
}

/** nvidia-smi's `2026/10/05 22:26:01.123` → ISO's dashes. */
function isoDate(t: string): string {
  return t.charCodeAt(4) === 47 /* / */ && t.charCodeAt(7) === 47 ? `${t.slice(0, 4)}-${t.slice(5, 7)}-${t.slice(8)}` : t;
}

export function readNvidiaSmi(text: string, file: string): MetricsRead {
  const out: MetricsRead = { samples: [], problems: [], notes: [] };
  const lines = text.split("\n");
  let columns = DEFAULT_COLUMNS;
  let first = 0;
  if (/timestamp/i.test(lines[0] ?? "")) {
    columns = (lines[0] as string)
      .replace(/^\uFEFF/, "")
      .split(",")
      .map((c) =>
        c
          .trim()
          .replace(/\s*\[.*\]$/, "")
          .toLowerCase(),
      );
    first = 1;
  }
  const col = (name: string): number => columns.indexOf(name);
  const [ti, ii, ui, tt, fi] = [col("timestamp"), col("index"), col("memory.used"), col("memory.total"), col("memory.free")];
  if (ti < 0 || ii < 0 || ui < 0) {
    throw new Error(
      `${file}:1: the nvidia-smi header lacks ${[ti < 0 ? "timestamp" : "", ii < 0 ? "index" : "", ui < 0 ? "memory.used" : ""].filter(Boolean).join(", ")}: query --query-gpu=timestamp,index,memory.used,memory.total --format=csv`,
    );
  }
  for (let n = first; n < lines.length; n++) {
    const raw = lines[n] as string;
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line.trim() === "") continue;
    const f = line.split(",");
    const bad = (reason: string): void => {
      out.problems.push({ file, line: n + 1, reason });
    };
    if (f.length < columns.length) {
      bad(`expected ${columns.length} columns, found ${f.length}`);
      continue;
    }
    const stamp = (f[ti] as string).trim();
    const t = parseTimestamp(isoDate(stamp));
    if (t === null) {
      bad(`not a timestamp: "${stamp}"`);
      continue;
    }
    const idx = (f[ii] as string).trim();
    const index = idx === "" ? NaN : Number(idx);
    if (!Number.isInteger(index) || index < 0) {
      bad(`not a GPU index: "${idx}"`);
      continue;
    }
    const used = mib(f[ui] as string);
    if (used === null) {
      bad(`memory.used is not MiB: "${(f[ui] as string).trim()}"`);
      continue;
    }
    const total = tt < 0 ? null : mib(f[tt] as string);
    const free = fi < 0 ? null : mib(f[fi] as string);
    out.samples.push({ host: null, index, t, used, free, total });
  }
  return out;
}
