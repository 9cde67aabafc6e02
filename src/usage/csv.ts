// CSV as LiteLLM's spend logs are exported (psql's `\copy … TO … CSV HEADER`, a spreadsheet, the UI):
// RFC 4180 — fields separated by commas, records by LF or CR LF, a field in double quotes may hold
// commas, newlines and doubled quotes. A psql export of LiteLLM_SpendLogs carries every column,
// among them messages, response and proxy_server_request, JSON of kilobytes each: the reader cuts
// records from the raw bytes and decodes only the columns asked for, so a 40-column row costs what
// its 13 read columns cost (csv-parse decoded and built every field: 5× slower than JSON lines).
//
// Memory: one read buffer (4 MiB, grown only for a single record longer than it) and one record.
import { GateError } from "../errors.js";
import { openFile, ReadBuffer } from "../load/lines.js";

/** As ./lines.ts: the event loop runs every so often, for the signal handlers of ./spill.ts. */
const YIELD_BYTES = 16 * 1024 * 1024;
const QUOTE = 34;
const COMMA = 44;
const LF = 10;
const CR = 13;

export interface CsvOptions {
  /** The columns to decode, by header name; the others are skipped in the bytes. */
  columns: readonly string[];
  /** Called with the header's names (trimmed) before any record; may throw to refuse the file. */
  header(names: string[]): void;
  /** A record: the asked columns it has (missing ones absent), and the line it starts on. */
  record(fields: Record<string, string>, line: number): void;
  onBytes?: (n: number) => void;
  hint?: string;
}

/** Reads a CSV file record by record; an unclosed quote at the end is a GateError at its line. */
export async function readCsvRecords(file: string, o: CsvOptions): Promise<void> {
  const fh = await openFile(file, o.hint);
  const rb = new ReadBuffer(fh.fd, file, o.hint);
  let eof = false;
  let line = 1;
  let first = true;
  /** Column index → the name to store it under, for the asked columns; undefined: skipped. */
  let wanted: (string | undefined)[] | null = null;
  let sinceYield = 0;
  try {
    for (;;) {
      if (!eof) {
        const n = rb.more();
        if (n === 0) eof = true;
        else {
          o.onBytes?.(n);
          sinceYield += n;
        }
      }
      const buf = rb.buf;
      const have = rb.have;
      let from = 0;
      if (first && have >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) from = 3;
      if (first && (have >= 3 || eof)) first = false;
      for (;;) {
        const r = cut(buf, from, have, eof);
        if (r === null) break;
        if (r === "unclosed") {
          throw new GateError(`${file}:${line}: a quote opened on this line is never closed: every line after it would be one field`, {
            hint: 'fix or remove that row (a field with a quote in it is written "..."" ..." in CSV), or export as JSON lines',
          });
        }
        if (r.blank) {
          // An empty line between records.
        } else if (wanted === null) {
          const names = r.fields.map((f) => decode(buf, f).trim());
          o.header(names);
          wanted = names.map((n) => (o.columns.includes(n) ? n : undefined));
        } else {
          const rec: Record<string, string> = {};
          for (let i = 0; i < r.fields.length; i++) {
            const name = wanted[i];
            if (name !== undefined) rec[name] = decode(buf, r.fields[i] as Field);
          }
          o.record(rec, line);
        }
        line += r.lines;
        from = r.next;
      }
      if (eof) {
        if (wanted === null) o.header([]);
        return;
      }
      rb.keepFrom(from);
      if (sinceYield >= YIELD_BYTES) {
        sinceYield = 0;
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    }
  } finally {
    await fh.close();
  }
}

interface Field {
  start: number;
  end: number;
  /** A quoted field with "" in it: decoded with the doubles made single. */
  doubled: boolean;
}

function decode(buf: Buffer, f: Field): string {
  const s = buf.toString("utf8", f.start, f.end);
  return f.doubled ? s.replace(/""/g, '"') : s;
}

/** One record from buf[from, to): its fields, how many lines it spans, and where the next starts;
 *  null when the bytes end inside it (more are needed), "unclosed" at the end of the file. */
function cut(
  buf: Buffer,
  from: number,
  to: number,
  eof: boolean,
): { fields: Field[]; lines: number; next: number; blank: boolean } | null | "unclosed" {
  if (from >= to) return null;
  const fields: Field[] = [];
  let at = from;
  let lines = 1;
  if (buf[at] === LF || (buf[at] === CR && buf[at + 1] === LF)) {
    if (buf[at] === CR && at + 1 >= to && !eof) return null;
    return { fields, lines: 1, next: at + (buf[at] === CR ? 2 : 1), blank: true };
  }
  for (;;) {
    if (buf[at] === QUOTE) {
      // A quoted field: to the quote that is not doubled.
      let q = at + 1;
      let doubled = false;
      for (;;) {
        const close = buf.indexOf(QUOTE, q);
        if (close === -1 || close >= to) {
          if (!eof) return null;
          return "unclosed";
        }
        if (close + 1 < to && buf[close + 1] === QUOTE) {
          doubled = true;
          q = close + 2;
          continue;
        }
        if (close + 1 >= to && !eof) return null;
        for (let i = buf.indexOf(LF, at + 1); i !== -1 && i < close; i = buf.indexOf(LF, i + 1)) lines++;
        fields.push({ start: at + 1, end: close, doubled });
        at = close + 1;
        break;
      }
      // Anything between the closing quote and the separator is kept out (lenient, as csv-parse was not).
      while (at < to && buf[at] !== COMMA && buf[at] !== LF) at++;
    } else {
      let i = at;
      while (i < to) {
        const c = buf[i];
        if (c === COMMA || c === LF) break;
        i++;
      }
      const end = i < to && buf[i] === LF && i > at && buf[i - 1] === CR ? i - 1 : i;
      fields.push({ start: at, end: i === to && to > at && buf[to - 1] === CR && eof ? to - 1 : end, doubled: false });
      at = i;
    }
    if (at >= to) {
      if (!eof) return null;
      return { fields, lines, next: to, blank: false };
    }
    if (buf[at] === COMMA) {
      at++;
      if (at >= to) {
        if (!eof) return null;
        fields.push({ start: at, end: at, doubled: false });
        return { fields, lines, next: to, blank: false };
      }
      continue;
    }
    // LF (a CR before it belongs to the line end).
    return { fields, lines, next: at + 1, blank: false };
  }
}
