// The `usage` report (contract section 16): per service, calls, token percentiles, the in-flight peak,
// the runaways with their key redacted, and the recommendation. One builder for the file and the
// database paths. The api_key column is LiteLLM's hash of the key, but a hash that authenticates
// nothing is still an identifier worth not publishing: it is shown as the house's redaction (first 4 and
// last 2 characters) and fingerprint (sha256:<12 hex>), with the key's alias when LiteLLM recorded one.
import { redactSecret, secretFingerprint } from "../secrets/redact.js";
import { VERSION } from "../version.js";
import type { Quantiles } from "./histogram.js";
import type { RowCounts, RowProblem, ServiceFigures } from "./figures.js";
import { recommend, type Recommendation } from "./recommend.js";
import type { SeatView } from "./seats.js";
import { isoOf } from "../units/timestamps.js";

export interface RedactedKey {
  key: string;
  key_fingerprint: string;
  key_alias: string | null;
}

export interface ServiceUsage {
  name: string;
  /** The engine of the service of that name in the working tree; null when the tree has none. */
  engine: string | null;
  calls: number;
  first_start: string;
  last_start: string;
  prompt_tokens: Quantiles;
  completion_tokens: Quantiles;
  peak_inflight_tokens: number;
  peak_inflight_tokens_without_runaways: number;
  runaway_threshold_tokens: number;
  runaway_count: number;
  runaways: (RedactedKey & { request_id: string; prompt_tokens: number; completion_tokens: number; start: string })[];
  runaway_keys: (RedactedKey & { count: number; max_completion_tokens: number })[];
  recommended: Recommendation | null;
  /** Today's settings of the seat, beside the recommendation. */
  current: { max_model_len: number | null; kv_pinned_bytes: number | null; output_cap: number | null } | null;
}

export interface UsageReport {
  tool: "kvgate";
  version: string;
  source: { files: string[] } | { database: string };
  since: string | null;
  until: string | null;
  rows: { read: number; used: number; skipped: number; outside_window: number };
  problems: RowProblem[];
  services: ServiceUsage[];
}

function redactKey(apiKey: string, alias: string | null): RedactedKey {
  if (apiKey === "") return { key: "(none)", key_fingerprint: "", key_alias: alias };
  return { key: redactSecret(apiKey), key_fingerprint: secretFingerprint(apiKey), key_alias: alias };
}

export interface ReportInput {
  source: UsageReport["source"];
  since: number | null;
  until: number | null;
  counts: RowCounts;
  problems: RowProblem[];
  figures: ServiceFigures[];
  seats: Map<string, SeatView>;
}

export function buildReport(i: ReportInput): UsageReport {
  return {
    tool: "kvgate",
    version: VERSION,
    source: i.source,
    since: i.since === null ? null : isoOf(i.since),
    until: i.until === null ? null : isoOf(i.until),
    rows: { read: i.counts.read, used: i.counts.used, skipped: i.counts.skipped, outside_window: i.counts.outside },
    problems: i.problems,
    services: i.figures.map((f) => serviceUsage(f, i.seats.get(f.name))),
  };
}

function serviceUsage(f: ServiceFigures, seat: SeatView | undefined): ServiceUsage {
  const vllm = seat?.engine === "vllm" ? seat : undefined;
  return {
    name: f.name,
    engine: seat?.engine ?? null,
    calls: f.calls,
    first_start: isoOf(f.firstStartMs),
    last_start: isoOf(f.lastStartMs),
    prompt_tokens: f.prompt,
    completion_tokens: f.completion,
    peak_inflight_tokens: f.peakAll,
    peak_inflight_tokens_without_runaways: f.peakWithoutRunaways,
    runaway_threshold_tokens: f.runawayThreshold,
    runaway_count: f.runawayCount,
    runaways: f.runaways.map((r) => ({
      request_id: r.request_id,
      ...redactKey(r.api_key, r.alias),
      prompt_tokens: r.prompt_tokens,
      completion_tokens: r.completion_tokens,
      start: isoOf(r.start_ms),
    })),
    runaway_keys: f.runawayKeys.map((k) => ({
      ...redactKey(k.api_key, k.alias),
      count: k.count,
      max_completion_tokens: k.max_completion_tokens,
    })),
    recommended: vllm ? recommend(f, vllm) : null,
    current: vllm ? { max_model_len: vllm.maxModelLen, kv_pinned_bytes: vllm.pinnedBytes, output_cap: vllm.outputCap } : null,
  };
}
