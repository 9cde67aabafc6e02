// Reading LiteLLM spend-log exports as a stream of rows: JSON lines, a JSON array, or CSV with a header
// (the LiteLLM_SpendLogs column names). Memory: one read buffer and one row, whatever the file's size.
// A row that cannot be used goes to `sink.bad` with its line; a file that is none of the three formats,
// or cannot be read, throws a GateError naming the file (exit 2).
import { StringDecoder } from "node:string_decoder";
import { GateError } from "../errors.js";
import { readCsvRecords } from "./csv.js";
import { JsonArraySplitter } from "./json-array.js";
import { cannotRead as cannotReadFile, eachLine, headOf, openFile as openAny } from "../load/lines.js";
import { MODEL_COLUMNS, READ_COLUMNS, REQUIRED_COLUMNS } from "./row.js";

export type SpendFormat = "jsonl" | "json" | "csv";

export interface RowSink {
  /** A parsed record (an object from JSON, an object of strings from CSV) and its line. */
  record(rec: unknown, line: number): void;
  bad(line: number | null, reason: string): void;
}

// Text is made per line (JSON lines, ./lines.ts) or per 64 KiB (a JSON array), never a string of
// megabytes: V8 keeps strings above ~128 KiB in large-object space, which only a full collection
// frees, and a 3 GB file would pile them up faster than it collects them.
const TEXT_CHUNK = 64 * 1024;
const FORMATS_HINT =
  "export LiteLLM_SpendLogs rows as JSON lines (one object per line), a JSON array of row objects, or CSV with the column names in the first line";
const READ_HINT = "name a readable LiteLLM spend-log export";

const cannotRead = (file: string, e: unknown): GateError => cannotReadFile(file, e, READ_HINT);
const openFile = (file: string) => openAny(file, READ_HINT);

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
  const head = await headOf(file, 64 * 1024, READ_HINT);
  const m = /\S/.exec(head);
  if (!m) throw new GateError(`${file} is empty`, { hint: FORMATS_HINT });
  if (m[0] === "[") return "json";
  if (m[0] === "{") return "jsonl";
  return "csv";
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
    { onBytes, hint: READ_HINT },
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
  await readCsvRecords(file, {
    columns: READ_COLUMNS,
    header(names) {
      const missing: string[] = REQUIRED_COLUMNS.filter((c) => !names.includes(c));
      if (!MODEL_COLUMNS.some((c) => names.includes(c))) missing.push(...MODEL_COLUMNS);
      if (missing.length > 0) {
        throw new GateError(`${file}:1: not a LiteLLM spend-log export: the header lacks ${missing.join(", ")}`, {
          hint: `${FORMATS_HINT} (LiteLLM_SpendLogs: request_id, api_key, model, model_group, prompt_tokens, completion_tokens, startTime, endTime, ...)`,
        });
      }
    },
    record: (fields, line) => sink.record(fields, line),
    onBytes,
    hint: READ_HINT,
  });
}
