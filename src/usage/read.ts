// Reading LiteLLM spend-log exports as a stream of rows: JSON lines, a JSON array, or CSV with a header
// (the LiteLLM_SpendLogs column names). Memory: one read buffer and one row, whatever the file's size.
// A row that cannot be used goes to `sink.bad` with its line; a file that is none of the three formats,
// or cannot be read, throws a GateError naming the file (exit 2).
import { createReadStream, readSync } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { StringDecoder } from "node:string_decoder";
import { parse as csvParse, type CsvError } from "csv-parse";
import { GateError } from "../errors.js";
import { JsonArraySplitter } from "./json-array.js";
import { MODEL_COLUMNS, REQUIRED_COLUMNS } from "./row.js";

export type SpendFormat = "jsonl" | "json" | "csv";

export interface RowSink {
  /** A parsed record (an object from JSON, an object of strings from CSV) and its line. */
  record(rec: unknown, line: number): void;
  bad(line: number | null, reason: string): void;
}

// Reads are 4 MiB; text is made per line (JSON lines) or per 64 KiB (a JSON array), never a string of
// megabytes: V8 keeps strings above ~128 KiB in large-object space, which only a full collection
// frees, and a 3 GB file would pile them up faster than it collects them.
const CHUNK = 4 * 1024 * 1024;
const TEXT_CHUNK = 64 * 1024;
const FORMATS_HINT =
  "export LiteLLM_SpendLogs rows as JSON lines (one object per line), a JSON array of row objects, or CSV with the column names in the first line";

function cannotRead(file: string, e: unknown): GateError {
  const code = (e as NodeJS.ErrnoException).code;
  return new GateError(
    `cannot read ${file}: ${code === "ENOENT" ? "no such file" : code === "EACCES" ? "permission denied" : code === "EISDIR" ? "a folder, not a file" : ((e as Error).message ?? String(e))}`,
    {
      hint: "name a readable LiteLLM spend-log export",
    },
  );
}

async function openFile(file: string): Promise<FileHandle> {
  try {
    const fh = await open(file, "r");
    const st = await fh.stat();
    if (st.isDirectory()) {
      await fh.close();
      throw Object.assign(new Error("is a directory"), { code: "EISDIR" });
    }
    return fh;
  } catch (e) {
    throw cannotRead(file, e);
  }
}

/** Text chunks of a file (UTF-8, a leading BOM dropped); `onBytes` is told each chunk's size. */
async function* chunks(file: string, onBytes: (n: number) => void): AsyncGenerator<string> {
  const fh = await openFile(file);
  const buf = Buffer.allocUnsafe(TEXT_CHUNK);
  const decoder = new StringDecoder("utf8");
  let first = true;
  try {
    for (;;) {
      let n: number;
      try {
        ({ bytesRead: n } = await fh.read(buf, 0, TEXT_CHUNK, null));
      } catch (e) {
        throw cannotRead(file, e);
      }
      if (n === 0) break;
      onBytes(n);
      let text = decoder.write(buf.subarray(0, n));
      if (first && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      first = false;
      yield text;
    }
    const rest = decoder.end();
    if (rest) yield rest;
  } finally {
    await fh.close();
  }
}

/** The format, from the first character that is not whitespace. Empty files are refused. */
async function detectFormat(file: string): Promise<SpendFormat> {
  const fh = await openFile(file);
  try {
    const buf = Buffer.alloc(64 * 1024);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    const head = buf
      .subarray(0, bytesRead)
      .toString("utf8")
      .replace(/^\uFEFF/, "");
    const m = /\S/.exec(head);
    if (!m) throw new GateError(`${file} is empty`, { hint: FORMATS_HINT });
    if (m[0] === "[") return "json";
    if (m[0] === "{") return "jsonl";
    return "csv";
  } catch (e) {
    if (e instanceof GateError) throw e;
    throw cannotRead(file, e);
  } finally {
    await fh.close();
  }
}

export async function readSpendFile(file: string, sink: RowSink, onBytes: (n: number) => void = () => {}): Promise<SpendFormat> {
  const format = await detectFormat(file);
  switch (format) {
    case "jsonl":
      await readJsonLines(file, sink, onBytes);
      break;
    case "json":
      await readJsonArray(file, sink, onBytes);
      break;
    case "csv":
      await readCsv(file, sink, onBytes);
      break;
    default:
      format satisfies never;
  }
  return format;
}

function parseRecord(text: string, line: number, sink: RowSink): void {
  let rec: unknown;
  try {
    rec = JSON.parse(text);
  } catch (e) {
    sink.bad(line, `not valid JSON: ${(e as Error).message.replace(/\s+/g, " ").slice(0, 120)}`);
    return;
  }
  sink.record(rec, line);
}

/** Each line of a file as a string of its own, split on the newline byte (which UTF-8 never uses
 *  inside a character, so no decoder state crosses a line), with its 1-based number. */
async function eachLine(file: string, onLine: (text: string, line: number) => void, onBytes: (n: number) => void): Promise<void> {
  const fh = await openFile(file);
  let buf = Buffer.allocUnsafe(CHUNK);
  let have = 0;
  let line = 0;
  let first = true;
  try {
    for (;;) {
      if (have === buf.length) {
        // One line longer than the buffer (a row with its messages stored): grow for it.
        const grown = Buffer.allocUnsafe(buf.length * 2);
        buf.copy(grown, 0, 0, have);
        buf = grown;
      }
      let n: number;
      try {
        // A synchronous read: nothing else runs meanwhile, and an await per 4 MiB left the thread idle.
        n = readSync(fh.fd, buf, have, buf.length - have, null);
      } catch (e) {
        throw cannotRead(file, e);
      }
      if (n === 0) break;
      onBytes(n);
      const end = have + n;
      let from = 0;
      if (first && end >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) from = 3;
      first = false;
      const view = buf.subarray(0, end);
      let nl: number;
      while ((nl = view.indexOf(10, from)) !== -1) {
        line++;
        const stop = nl > from && buf[nl - 1] === 13 ? nl - 1 : nl;
        onLine(buf.toString("utf8", from, stop), line);
        from = nl + 1;
      }
      have = end - from;
      buf.copy(buf, 0, from, end);
    }
    if (have > 0) {
      line++;
      const stop = buf[have - 1] === 13 ? have - 1 : have;
      onLine(buf.toString("utf8", 0, stop), line);
    }
  } finally {
    await fh.close();
  }
}

async function readJsonLines(file: string, sink: RowSink, onBytes: (n: number) => void): Promise<void> {
  let firstChecked = false;
  await eachLine(
    file,
    (text, line) => {
      if (text.charCodeAt(0) !== 123 /* { */ && text.trim() === "") return;
      if (!firstChecked) {
        firstChecked = true;
        // A pretty-printed object (an API response) is not JSON lines: say so instead of skipping every line.
        try {
          JSON.parse(text);
        } catch {
          throw new GateError(`${file}:${line}: the first line is not a whole JSON object: this is not JSON lines`, {
            hint: `${FORMATS_HINT}; for a /spend/logs API response, take its rows: jq -c '.data[]' or jq -c '.[]'`,
          });
        }
      }
      parseRecord(text, line, sink);
    },
    onBytes,
  );
}

async function readJsonArray(file: string, sink: RowSink, onBytes: (n: number) => void): Promise<void> {
  const splitter = new JsonArraySplitter({ element: (text, line) => parseRecord(text, line, sink) });
  try {
    for await (const chunk of chunks(file, onBytes)) splitter.write(chunk);
  } catch (e) {
    if (e instanceof GateError) throw e;
    throw new GateError(`${file}: not a JSON array of rows: ${(e as Error).message}`, { hint: FORMATS_HINT });
  }
  const { unfinished, closed } = splitter.end();
  // A truncated export (a copy cut short) loses its last row, not the rows before it.
  if (unfinished) sink.bad(unfinished.line, "the file ends inside this row (a truncated export?)");
  else if (!closed) sink.bad(null, "the file ends before the array's closing ] (a truncated export?)");
}

async function readCsv(file: string, sink: RowSink, onBytes: (n: number) => void): Promise<void> {
  await openFile(file).then((fh) => fh.close());
  // The line the last good record ended on: where an unclosed quote began is the line after it.
  let lastLine = 1;
  let unclosed: CsvError | null = null;
  const parser = csvParse({
    bom: true,
    columns: (header: string[]) => {
      const names = header.map((h) => h.trim());
      const missing = REQUIRED_COLUMNS.filter((c) => !names.includes(c));
      if (!MODEL_COLUMNS.some((c) => names.includes(c))) missing.push(...(MODEL_COLUMNS as unknown as (typeof REQUIRED_COLUMNS)[number][]));
      if (missing.length > 0) {
        throw new GateError(`${file}:1: not a LiteLLM spend-log export: the header lacks ${missing.join(", ")}`, {
          hint: `${FORMATS_HINT} (LiteLLM_SpendLogs: request_id, api_key, model, model_group, prompt_tokens, completion_tokens, startTime, endTime, ...)`,
        });
      }
      return names;
    },
    info: true,
    relax_column_count: true,
    relax_quotes: false,
    skip_empty_lines: true,
    skip_records_with_error: true,
    on_skip: (err: CsvError | undefined) => {
      // A quote that never closes swallows every later line into one field: that is a broken file,
      // not one bad row, and counting it as one skipped row would hide the rows it ate.
      if (err?.code === "CSV_QUOTE_NOT_CLOSED") {
        unclosed = err;
        return undefined;
      }
      sink.bad((err as { lines?: number } | undefined)?.lines ?? null, `not a CSV row: ${err?.message ?? "unreadable"}`);
      return undefined;
    },
  });
  const input = createReadStream(file, { highWaterMark: 1024 * 1024 });
  input.on("data", (b) => onBytes((b as Buffer).length));
  input.on("error", (e) => parser.destroy(cannotRead(file, e)));
  input.pipe(parser);
  try {
    for await (const item of parser as AsyncIterable<{
      record: Record<string, string>;
      info: { lines: number; invalid_field_length: number };
    }>) {
      sink.record(item.record, item.info.lines);
      lastLine = item.info.lines;
    }
  } catch (e) {
    if (e instanceof GateError) throw e;
    const err = e as CsvError & { lines?: number };
    throw new GateError(`${file}${err.lines ? `:${err.lines}` : ""}: not readable as CSV: ${err.message}`, { hint: FORMATS_HINT });
  }
  if (unclosed !== null) {
    throw new GateError(`${file}:${lastLine + 1}: a quote opened on this line is never closed: every line after it would be one field`, {
      hint: 'fix or remove that row (a field with a quote in it is written "..."" ..." in CSV), or export as JSON lines',
    });
  }
}
