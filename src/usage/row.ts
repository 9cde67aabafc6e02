// One LiteLLM_SpendLogs row as `usage` needs it (LiteLLM's schema.prisma, model LiteLLM_SpendLogs):
// request_id String, api_key String (the sha256 of the virtual key, never the key itself), model String,
// model_group String?, prompt_tokens Int, completion_tokens Int, startTime DateTime, endTime DateTime,
// metadata Json? (user_api_key_alias, the key's readable name). JSON exports carry numbers and objects;
// CSV exports carry the same columns as text.
import { parseTimestamp } from "../units/timestamps.js";

export interface SpendRow {
  requestId: string;
  apiKey: string;
  /** The metadata column as read (an object from JSON, text from CSV); parsed only for runaways. */
  metadata: unknown;
  model: string;
  modelGroup: string;
  prompt: number;
  completion: number;
  /** Milliseconds since the epoch (UTC), sub-millisecond digits as a fraction. */
  start: number;
  end: number;
}

/** The columns a row must have; the others are read when present. */
export const REQUIRED_COLUMNS = ["prompt_tokens", "completion_tokens", "startTime", "endTime"] as const;
/** At least one of these names the model. */
export const MODEL_COLUMNS = ["model_group", "model"] as const;

function tokensOf(v: unknown, name: string): number | string {
  if (typeof v === "number") {
    if (Number.isSafeInteger(v) && v >= 0) return v;
    return `${name}: expected a whole number of tokens ≥ 0, got ${v}`;
  }
  if (typeof v === "string" && /^\d{1,15}$/.test(v)) return Number(v);
  if (v === undefined || v === null || v === "") return `${name} is missing`;
  return `${name}: expected a whole number of tokens ≥ 0, got ${JSON.stringify(v).slice(0, 40)}`;
}

function timeOf(v: unknown, name: string): number | string {
  if (v === undefined || v === null || v === "") return `${name} is missing`;
  if (typeof v === "string") {
    const t = parseTimestamp(v);
    if (t !== null) return t;
    return `${name}: not a timestamp: ${JSON.stringify(v.slice(0, 40))} (expected ISO 8601, e.g. 2026-10-05T22:26:01.123Z)`;
  }
  return `${name}: not a timestamp: ${JSON.stringify(v).slice(0, 40)}`;
}

function text(v: unknown): string {
  return typeof v === "string" ? v : "";
}

export function emptyRow(): SpendRow {
  return { requestId: "", apiKey: "", metadata: null, model: "", modelGroup: "", prompt: 0, completion: 0, start: 0, end: 0 };
}

/** The row, or why it cannot be used (a sentence naming the column). With `into`, the row is written
 *  there and returned (one object for a whole file instead of one per row: the caller must not keep it). */
export function spendRowOf(rec: unknown, into?: SpendRow): SpendRow | string {
  if (typeof rec !== "object" || rec === null || Array.isArray(rec)) return "not a row object";
  const r = rec as Record<string, unknown>;
  const prompt = tokensOf(r.prompt_tokens, "prompt_tokens");
  if (typeof prompt === "string") return prompt;
  const completion = tokensOf(r.completion_tokens, "completion_tokens");
  if (typeof completion === "string") return completion;
  const start = timeOf(r.startTime, "startTime");
  if (typeof start === "string") return start;
  const end = timeOf(r.endTime, "endTime");
  if (typeof end === "string") return end;
  if (end < start) return `endTime ${String(r.endTime)} is before startTime ${String(r.startTime)}`;
  const modelGroup = text(r.model_group);
  const model = text(r.model);
  if (modelGroup === "" && model === "") return "neither model_group nor model names the model";
  const row = into ?? emptyRow();
  row.requestId = text(r.request_id);
  row.apiKey = text(r.api_key);
  row.metadata = r.metadata;
  row.model = model;
  row.modelGroup = modelGroup;
  row.prompt = prompt;
  row.completion = completion;
  row.start = start;
  row.end = end;
  return row;
}

/** metadata.user_api_key_alias: the name the key was given in LiteLLM (not a secret). */
export function keyAliasOf(metadata: unknown): string | null {
  let m = metadata;
  if (typeof m === "string") {
    if (!m.includes("user_api_key_alias")) return null;
    try {
      m = JSON.parse(m);
    } catch {
      return null;
    }
  }
  if (typeof m !== "object" || m === null) return null;
  const alias = (m as Record<string, unknown>).user_api_key_alias;
  return typeof alias === "string" && alias !== "" ? alias : null;
}
