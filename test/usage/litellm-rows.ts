// LiteLLM_SpendLogs rows as the proxy writes them (schema.prisma's model LiteLLM_SpendLogs, filled by
// proxy/spend_tracking/spend_tracking_utils.py get_logging_payload), not from kvgate's examples:
// - request_id the response id (`chatcmpl-…`); a cache hit's gets `_cache_hit<time>` appended (the
//   table does not allow a duplicate id);
// - api_key the sha256 of the virtual key; metadata a JSON object of user_api_key_*, status and, on a
//   failure, error_information {error_code, error_class, llm_provider, traceback, error_message};
// - cache_hit str(bool): "True" / "False"; cache_key "Cache OFF" without a cache; status "success" or
//   "failure"; model the provider's name, model_group the proxy's, model_id and api_base the deployment;
// - startTime/endTime/completionStartTime UTC; spend, total_tokens, and the JSON columns as "{}"/"[]".
// Written out as the API's JSON lines and JSON array, and as a CSV for `\copy … FROM` (the tests then
// let psql itself export it, for the CSV a real `\copy … TO` writes).
import { createHash } from "node:crypto";

export interface RowSpec {
  id: string;
  group: string;
  prompt: number;
  completion: number;
  /** Seconds after BASE. */
  start: number;
  end: number;
  key?: string;
  alias?: string;
  apiBase?: string;
  cacheHit?: boolean;
  /** A failure: the error's class and message (LiteLLM's error_information). */
  failure?: { cls: string; message: string; code?: string };
}

const BASE = Date.UTC(2026, 9, 1, 8, 0, 0);
const iso = (s: number): string => new Date(BASE + s * 1000).toISOString();

const sha = (s: string): string => createHash("sha256").update(s).digest("hex");

function litellmRow(r: RowSpec): Record<string, unknown> {
  const key = sha(r.key ?? "sk-kvgate-test-key");
  const failed = r.failure !== undefined;
  const metadata: Record<string, unknown> = {
    user_api_key: key,
    user_api_key_alias: r.alias ?? "router",
    user_api_key_team_id: "team-infra",
    user_api_key_org_id: null,
    user_api_key_user_id: "ops",
    user_api_key_team_alias: "infra",
    spend_logs_metadata: null,
    requester_ip_address: "10.0.0.21",
    applied_guardrails: [],
    batch_models: null,
    mcp_tool_call_metadata: null,
    vector_store_request_metadata: null,
    guardrail_information: null,
    usage_object: failed ? null : { prompt_tokens: r.prompt, completion_tokens: r.completion, total_tokens: r.prompt + r.completion },
    model_map_information: { model_map_key: `hosted_vllm/${r.group}`, model_map_value: null },
    additional_usage_values: {},
    status: failed ? "failure" : "success",
    error_information: failed
      ? {
          error_code: r.failure?.code ?? "400",
          error_class: r.failure?.cls,
          llm_provider: "hosted_vllm",
          traceback: "Traceback (most recent call last): …",
          error_message: r.failure?.message,
        }
      : null,
  };
  return {
    request_id: r.cacheHit ? `${r.id}_cache_hit${(BASE / 1000 + r.start).toFixed(4)}` : r.id,
    call_type: "acompletion",
    api_key: key,
    spend: 0,
    total_tokens: r.prompt + r.completion,
    prompt_tokens: r.prompt,
    completion_tokens: r.completion,
    startTime: iso(r.start),
    endTime: iso(r.end),
    request_duration_ms: (r.end - r.start) * 1000,
    completionStartTime: iso(Math.min(r.end, r.start + 0.2)),
    model: `hosted_vllm/${r.group}`,
    model_id: sha(`${r.apiBase ?? "http://fv-ml1:8001/v1"}/${r.group}`).slice(0, 64),
    model_group: r.group,
    custom_llm_provider: "hosted_vllm",
    api_base: r.apiBase ?? "http://fv-ml1:8001/v1",
    user: "ops",
    metadata,
    cache_hit: r.cacheHit ? "True" : "False",
    cache_key: r.cacheHit ? sha(`cache-${r.id}`) : "Cache OFF",
    request_tags: [],
    team_id: "team-infra",
    organization_id: null,
    end_user: "",
    requester_ip_address: "10.0.0.21",
    messages: {},
    response: {},
    session_id: `6f1c2d3e-${String(r.start).padStart(4, "0")}-4a5b-8c9d-0e1f2a3b4c5d`,
    status: failed ? "failure" : "success",
    mcp_namespaced_tool_name: null,
    agent_id: null,
    proxy_server_request: {},
  };
}

export const jsonLines = (rows: RowSpec[]): string => rows.map((r) => JSON.stringify(litellmRow(r))).join("\n") + "\n";
export const jsonArray = (rows: RowSpec[]): string => JSON.stringify(rows.map(litellmRow), null, 2);

/** The table's columns, as test/helpers/litellm-spendlogs.sql creates them (LiteLLM's schema). */
const TABLE_COLUMNS = [
  "request_id",
  "call_type",
  "api_key",
  "spend",
  "total_tokens",
  "prompt_tokens",
  "completion_tokens",
  "startTime",
  "endTime",
  "request_duration_ms",
  "completionStartTime",
  "model",
  "model_id",
  "model_group",
  "custom_llm_provider",
  "api_base",
  "user",
  "metadata",
  "cache_hit",
  "cache_key",
  "request_tags",
  "team_id",
  "organization_id",
  "end_user",
  "requester_ip_address",
  "messages",
  "response",
  "session_id",
  "status",
  "mcp_namespaced_tool_name",
  "agent_id",
  "proxy_server_request",
] as const;

/** CSV for `\copy "LiteLLM_SpendLogs"(…) FROM STDIN WITH (FORMAT csv, HEADER true)`: null as an empty field. */
export function copyCsv(rows: RowSpec[]): string {
  const q = (v: unknown): string => {
    if (v === null || v === undefined) return "";
    const s = typeof v === "string" ? v : JSON.stringify(v);
    return /[",\n\r]/.test(s) || s === "" ? `"${s.replace(/"/g, '""')}"` : s;
  };
  return [TABLE_COLUMNS.join(","), ...rows.map((r) => TABLE_COLUMNS.map((c) => q(litellmRow(r)[c])).join(","))].join("\n") + "\n";
}

export const COPY_COLUMNS = TABLE_COLUMNS.map((c) => (/[A-Z]/.test(c) || c === "user" ? `"${c}"` : c)).join(",");
