// One LiteLLM_SpendLogs row as `usage` needs it (LiteLLM's schema.prisma, model LiteLLM_SpendLogs, and
// proxy/spend_tracking/spend_tracking_utils.py, which fills it): request_id, api_key (the sha256 of the
// virtual key, never the key itself), model, model_group, model_id and api_base (the deployment that
// served it), prompt_tokens, completion_tokens, startTime, endTime, cache_hit (Python's str(bool):
// "True"/"False"), status ("success"/"failure"; older proxies keep it as metadata.status only) and
// metadata (user_api_key_alias, the key's readable name; error_information {error_class,
// error_message} on a failure). JSON exports carry numbers and objects; CSV exports the same columns as
// text.
//
// What a row means for sizing a seat: a failed request is not a call (it used no KV, or was refused
// before any) but a context-length refusal is the one direct sign that max_model_len is too small; a
// cache hit never reached the engine.
import { parseTimestamp } from "../units/timestamps.js";

export interface SpendRow {
  requestId: string;
  apiKey: string;
  /** The metadata column as read (an object from JSON, text from CSV); parsed only when needed. */
  metadata: unknown;
  model: string;
  modelGroup: string;
  /** api_base, else model_id: which deployment of the model group served it ("" when neither says). */
  deployment: string;
  prompt: number;
  completion: number;
  /** Milliseconds since the epoch (UTC), sub-millisecond digits as a fraction. */
  start: number;
  end: number;
  failed: boolean;
  cacheHit: boolean;
}

/** The columns a row must have; the others are read when present. */
export const REQUIRED_COLUMNS = ["prompt_tokens", "completion_tokens", "startTime", "endTime"] as const;
/** At least one of these names the model. */
export const MODEL_COLUMNS = ["model_group", "model"] as const;
/** Every column `usage` reads (a CSV reader decodes only these). */
export const READ_COLUMNS = [
  "request_id",
  "api_key",
  "model",
  "model_group",
  "model_id",
  "api_base",
  "prompt_tokens",
  "completion_tokens",
  "startTime",
  "endTime",
  "metadata",
  "status",
  "cache_hit",
] as const;

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

/** The metadata column as an object (JSON exports hold one; CSV and SQL text hold its JSON). */
function metadataObject(metadata: unknown): Record<string, unknown> | null {
  let m = metadata;
  if (typeof m === "string") {
    try {
      m = JSON.parse(m);
    } catch {
      return null;
    }
  }
  return typeof m === "object" && m !== null && !Array.isArray(m) ? (m as Record<string, unknown>) : null;
}

function failedOf(r: Record<string, unknown>): boolean {
  const status = r.status;
  if (typeof status === "string" && status !== "") return status === "failure";
  // Proxies before the status column kept it in metadata.status.
  const m = r.metadata;
  if (typeof m === "string" && !m.includes('"failure"')) return false;
  return metadataObject(m)?.status === "failure";
}

function cacheHitOf(v: unknown): boolean {
  return v === true || v === "True" || v === "true" || v === "1" || v === 1;
}

export function emptyRow(): SpendRow {
  return {
    requestId: "",
    apiKey: "",
    metadata: null,
    model: "",
    modelGroup: "",
    deployment: "",
    prompt: 0,
    completion: 0,
    start: 0,
    end: 0,
    failed: false,
    cacheHit: false,
  };
}

/** The row, or why it cannot be used (a sentence naming the column). With `into`, the row is written
 *  there and returned (one object for a whole file instead of one per row: the caller must not keep it). */
export function spendRowOf(rec: unknown, into?: SpendRow): SpendRow | string {
  if (typeof rec !== "object" || rec === null || Array.isArray(rec)) return "not a row object";
  const r = rec as Record<string, unknown>;
  const modelGroup = text(r.model_group);
  const model = text(r.model);
  const failed = failedOf(r);
  let prompt: number | string;
  let completion: number | string;
  let start: number | string;
  let end: number | string;
  if (failed) {
    // A failure row: its start places it in the window; its tokens (often 0) and end are kept when readable.
    start = timeOf(r.startTime, "startTime");
    if (typeof start === "string") return start;
    prompt = tokensOf(r.prompt_tokens, "prompt_tokens");
    completion = tokensOf(r.completion_tokens, "completion_tokens");
    end = timeOf(r.endTime, "endTime");
    if (typeof prompt === "string") prompt = 0;
    if (typeof completion === "string") completion = 0;
    if (typeof end === "string" || end < start) end = start;
  } else {
    prompt = tokensOf(r.prompt_tokens, "prompt_tokens");
    if (typeof prompt === "string") return prompt;
    completion = tokensOf(r.completion_tokens, "completion_tokens");
    if (typeof completion === "string") return completion;
    start = timeOf(r.startTime, "startTime");
    if (typeof start === "string") return start;
    end = timeOf(r.endTime, "endTime");
    if (typeof end === "string") return end;
    if (end < start) return `endTime ${String(r.endTime)} is before startTime ${String(r.startTime)}`;
  }
  if (modelGroup === "" && model === "") return "neither model_group nor model names the model";
  const row = into ?? emptyRow();
  row.requestId = text(r.request_id);
  row.apiKey = text(r.api_key);
  row.metadata = r.metadata;
  row.model = model;
  row.modelGroup = modelGroup;
  row.deployment = text(r.api_base) || text(r.model_id);
  row.prompt = prompt;
  row.completion = completion;
  row.start = start;
  row.end = end;
  row.failed = failed;
  row.cacheHit = !failed && cacheHitOf(r.cache_hit);
  return row;
}

/** metadata.user_api_key_alias: the name the key was given in LiteLLM (not a secret). */
export function keyAliasOf(metadata: unknown): string | null {
  if (typeof metadata === "string" && !metadata.includes("user_api_key_alias")) return null;
  const alias = metadataObject(metadata)?.user_api_key_alias;
  return typeof alias === "string" && alias !== "" ? alias : null;
}

/**
 * A failure that says the request did not fit the context: LiteLLM maps vLLM's 400 "This model's maximum
 * context length is 32768 tokens. However, you requested 33154 tokens (…)" (and "your request has N
 * input tokens") to ContextWindowExceededError. `asked`: the tokens it needed, when the message says;
 * `limit`: the maximum it was refused against. The SQL (./sql.ts) reads the same patterns.
 */
export interface ContextError {
  asked: number | null;
  limit: number | null;
}

const CONTEXT_MESSAGE = /maximum context length|context length exceeded|context_length_exceeded|context window|prompt is too long/i;
const ASKED = [/you requested (\d+) tokens/i, /your request has (\d+) input tokens/i];
const LIMIT = /maximum context length is (\d+)/i;

export function contextErrorOf(metadata: unknown): ContextError | null {
  const info = metadataObject(metadata)?.error_information;
  if (typeof info !== "object" || info === null) return null;
  const cls = (info as { error_class?: unknown }).error_class;
  const message = (info as { error_message?: unknown }).error_message;
  const msg = typeof message === "string" ? message : "";
  if (cls !== "ContextWindowExceededError" && !CONTEXT_MESSAGE.test(msg)) return null;
  let asked: number | null = null;
  for (const re of ASKED) {
    const m = re.exec(msg);
    if (m) {
      asked = Number(m[1]);
      break;
    }
  }
  const limit = LIMIT.exec(msg);
  return { asked, limit: limit ? Number(limit[1]) : null };
}
