// `nvidia-smi --query-gpu=timestamp,index,memory.used,memory.total --format=csv` (with or without
// `,noheader` and `,nounits`), as written by `-l 60 >> file` or a cron job: a header that names the
// columns (`memory.used [MiB]`), printed again each time the logger restarts. Values are MiB ("1234
// MiB", or bare numbers with nounits); "[N/A]" readings are skipped and listed. nvidia-smi prints
// local time without a zone (`2026/10/05 22:26:01.123`): it is read as UTC — only the intervals matter
// here (the 10 minutes after a boot), and every time is shown as UTC.
//
// Read line by line (a year of per-minute samples of 8 cards is 10 million lines); a line is cut at
// its commas by hand, no array per line.
import { MiB } from "../units/bytes.js";
import { parseTimestamp } from "../units/timestamps.js";
import type { GpuReading, MetricsSink } from "./sample.js";

const DEFAULT_COLUMNS = ["timestamp", "index", "memory.used", "memory.total"];

function isSpace(c: number): boolean {
  return c === 32 || c === 9;
}

/** "1234 MiB", " 1234" (nounits) in text[from, to) → bytes; null for "[N/A]" and anything that is not MiB. Read
 *  in place, without cutting the field out: this runs for every reading of a 10-million-line file. */
function mibIn(text: string, from: number, to: number): number | null {
  let i = from;
  let end = to;
  while (i < end && isSpace(text.charCodeAt(i))) i++;
  while (end > i && isSpace(text.charCodeAt(end - 1))) end--;
  // "MiB" (with the space before it) at the end.
  if (end - i >= 3 && text.charCodeAt(end - 1) === 66 && text.charCodeAt(end - 2) === 105 && text.charCodeAt(end - 3) === 77) {
    end -= 3;
    while (end > i && isSpace(text.charCodeAt(end - 1))) end--;
  }
  let whole = 0;
  let digits = 0;
  while (i < end) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) break;
    whole = whole * 10 + d;
    digits++;
    i++;
  }
  if (digits === 0 || digits > 9) return null;
  let frac = 0;
  let scale = 1;
  if (i < end && text.charCodeAt(i) === 46) {
    i++;
    const at = i;
    while (i < end) {
      const d = text.charCodeAt(i) - 48;
      if (d < 0 || d > 9) break;
      frac = frac * 10 + d;
      scale *= 10;
      i++;
    }
    if (i === at) return null;
  }
  if (i !== end) return null;
  return Math.round((whole + frac / scale) * MiB);
}

/** A card index: 1 to 4 digits, spaces around. */
function indexIn(text: string, from: number, to: number): number | null {
  let i = from;
  let end = to;
  while (i < end && isSpace(text.charCodeAt(i))) i++;
  while (end > i && isSpace(text.charCodeAt(end - 1))) end--;
  if (end === i || end - i > 4) return null;
  let v = 0;
  for (; i < end; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return null;
    v = v * 10 + d;
  }
  return v;
}

function isHeader(line: string): boolean {
  return /(^|,)\s*timestamp\b/i.test(line) && /memory\./i.test(line);
}

/** The lines of one nvidia-smi CSV, one at a time; the header (the first line, or a repeat) sets the columns. */
export class NvidiaSmiLines {
  private columns = DEFAULT_COLUMNS;
  private ti = 0;
  private ii = 1;
  private ui = 2;
  private tt = 3;
  private fi = -1;
  /** Comma positions of the line being read (the columns nvidia-smi can print, and a few more). */
  private readonly cut = new Int32Array(64);
  private readonly scratch: GpuReading = { host: null, index: 0, t: 0, used: 0, free: null, total: null };

  constructor(
    private readonly file: string,
    private readonly sink: MetricsSink,
  ) {}

  /** Whether a line is a header (nvidia-smi prints one each time it starts). */
  static isHeader = isHeader;

  line(raw: string, n: number): void {
    // A data line starts with its timestamp's year; anything else may be a header (printed at each start).
    const c0 = raw.charCodeAt(0);
    if (!(c0 >= 48 && c0 <= 57)) {
      if (raw.trim() === "") return;
      if (isHeader(raw)) {
        this.header(raw.replace(/^\uFEFF/, ""), n);
        return;
      }
    }
    const bad = (reason: string): void => this.sink.problem(n, reason);
    // The comma positions: fields are read from the line in place, not split into strings.
    const cut = this.cut;
    let fields = 0;
    cut[0] = -1;
    for (let at = raw.indexOf(","); at !== -1 && fields < cut.length - 2; at = raw.indexOf(",", at + 1)) cut[++fields] = at;
    cut[++fields] = raw.length;
    if (fields < this.columns.length) {
      bad(`expected ${this.columns.length} columns (${this.columns.join(", ")}), found ${fields}`);
      return;
    }
    const from = (i: number): number => (cut[i] as number) + 1;
    const to = (i: number): number => cut[i + 1] as number;
    const stamp = raw.slice(from(this.ti), to(this.ti)).trim();
    const t = parseTimestamp(stamp);
    if (t === null) {
      bad(`not a timestamp: ${JSON.stringify(stamp.slice(0, 40))}`);
      return;
    }
    const index = indexIn(raw, from(this.ii), to(this.ii));
    if (index === null) {
      bad(`not a GPU index: ${JSON.stringify(raw.slice(from(this.ii), to(this.ii)).trim().slice(0, 40))}`);
      return;
    }
    const used = mibIn(raw, from(this.ui), to(this.ui));
    if (used === null) {
      bad(`memory.used is not MiB: ${JSON.stringify(raw.slice(from(this.ui), to(this.ui)).trim().slice(0, 40))}`);
      return;
    }
    let total: number | null = null;
    if (this.tt >= 0) {
      total = mibIn(raw, from(this.tt), to(this.tt));
      if (total === null || total === 0) {
        bad(`memory.total is not MiB: ${JSON.stringify(raw.slice(from(this.tt), to(this.tt)).trim().slice(0, 40))}`);
        return;
      }
    }
    const free = this.fi < 0 ? null : mibIn(raw, from(this.fi), to(this.fi));
    // One reading object for the whole file: the sink copies what it keeps.
    const r = this.scratch;
    r.index = index;
    r.t = t;
    r.used = used;
    r.free = free;
    r.total = total;
    this.sink.gpu(r, n);
  }

  private header(line: string, n: number): void {
    const columns = line.split(",").map((c) =>
      c
        .trim()
        .replace(/\s*\[.*\]$/, "")
        .toLowerCase(),
    );
    const col = (name: string): number => columns.indexOf(name);
    const [ti, ii, ui] = [col("timestamp"), col("index"), col("memory.used")];
    const missing = [ti < 0 ? "timestamp" : "", ii < 0 ? "index" : "", ui < 0 ? "memory.used" : ""].filter(Boolean);
    if (missing.length > 0) {
      throw new Error(
        `${this.file}:${n}: the nvidia-smi header lacks ${missing.join(", ")}: query --query-gpu=timestamp,index,memory.used,memory.total --format=csv`,
      );
    }
    this.columns = columns;
    this.ti = ti;
    this.ii = ii;
    this.ui = ui;
    this.tt = col("memory.total");
    this.fi = col("memory.free");
  }
}
