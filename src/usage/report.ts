// The `usage` report (docs/usage-observe.md): per service, calls, token percentiles, the in-flight peak,
// the runaways with their key redacted, failures and cache hits (not calls), and the recommendation —
// or, below the evidence floor, why there is none. One builder for the file and the database paths.
// The api_key column is LiteLLM's hash of the key, but a hash that authenticates nothing is still an
// identifier worth not publishing: it is shown as the house's redaction (first 4 and last 2
// characters) and fingerprint (sha256:<12 hex>), with the key's alias when LiteLLM recorded one. Every
// other shown text passes the masker in the command (./shown.ts). Times are UTC.
import { redactSecret, secretFingerprint } from "../secrets/redact.js";
import { VERSION } from "../version.js";
import type { Quantiles } from "./histogram.js";
import type { RowCounts, RowProblem, ServiceFigures } from "./figures.js";
import { evidenceGap, recommend, spanMs, type EngineEvidence, type EvidenceFloor, type Recommendation } from "./recommend.js";
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
  /** Requests the engine served (not failures, not cache hits). */
  calls: number;
  failed: number;
  /** Failures that were context-length refusals: the sign max_model_len is too small. */
  context_errors: { count: number; largest_request_tokens: number | null; limit_tokens: number | null };
  cache_hits: number;
  first_start: string | null;
  last_start: string | null;
  span_hours: number;
  prompt_tokens: Quantiles;
  completion_tokens: Quantiles;
  peak_inflight_tokens: number;
  /** The peak the KV is sized from: without the replies a cap would cut (with a cap in force, the replies above it). */
  peak_inflight_tokens_without_runaways: number;
  /** The seat's output cap is in force: replies that stopped at it are listed as runaways but counted in the peak. */
  cap_in_force: boolean;
  runaway_threshold_tokens: number;
  runaway_count: number;
  runaways: (RedactedKey & { request_id: string; prompt_tokens: number; completion_tokens: number; start: string })[];
  runaway_keys: (RedactedKey & { count: number; max_completion_tokens: number })[];
  /** When more than one deployment (api_base, else model_id) served it. */
  deployments: { deployment: string; calls: number; peak_inflight_tokens: number }[];
  recommended: Recommendation | null;
  /** Why there is no recommendation for a vLLM seat: the traffic is below the evidence floor. */
  advice_withheld: string | null;
  /** What vLLM's own metrics said of the seat. */
  engine_evidence: EngineEvidence | null;
  /** Today's settings of the seat, beside the recommendation. */
  current: { max_model_len: number | null; kv_pinned_bytes: number | null; output_cap: number | null } | null;
}

export interface UsageReport {
  tool: "kvgate";
  version: string;
  /** Every time in this report is UTC (ISO 8601 with Z). */
  times: "UTC";
  source: { files: string[] } | { database: string };
  since: string | null;
  until: string | null;
  evidence_floor: { min_requests: number; min_span_hours: number };
  rows: { read: number; used: number; skipped: number; outside_window: number; failed: number; cache_hits: number };
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
  floor: EvidenceFloor;
  engines: Map<string, EngineEvidence>;
}

export function buildReport(i: ReportInput): UsageReport {
  return {
    tool: "kvgate",
    version: VERSION,
    times: "UTC",
    source: i.source,
    since: i.since === null ? null : isoOf(i.since),
    until: i.until === null ? null : isoOf(i.until),
    evidence_floor: { min_requests: i.floor.minRequests, min_span_hours: i.floor.minSpanMs / 3_600_000 },
    rows: {
      read: i.counts.read,
      used: i.counts.used,
      skipped: i.counts.skipped,
      outside_window: i.counts.outside,
      failed: i.counts.failed,
      cache_hits: i.counts.cacheHits,
    },
    problems: i.problems,
    services: i.figures.map((f) => serviceUsage(f, i.seats.get(f.name), i.floor, i.engines.get(f.name) ?? null)),
  };
}

function serviceUsage(f: ServiceFigures, seat: SeatView | undefined, floor: EvidenceFloor, engine: EngineEvidence | null): ServiceUsage {
  const vllm = seat?.engine === "vllm" ? seat : undefined;
  const capInForce = (vllm?.outputCap ?? null) !== null;
  const gap = vllm && f.calls > 0 ? evidenceGap(f, floor) : null;
  return {
    name: f.name,
    engine: seat?.engine ?? null,
    calls: f.calls,
    failed: f.failed,
    context_errors: { count: f.contextErrors.count, largest_request_tokens: f.contextErrors.maxAsked, limit_tokens: f.contextErrors.limit },
    cache_hits: f.cacheHits,
    first_start: f.calls === 0 ? null : isoOf(f.firstStartMs),
    last_start: f.calls === 0 ? null : isoOf(f.lastStartMs),
    span_hours: Math.round((spanMs(f) / 3_600_000) * 10) / 10,
    prompt_tokens: f.prompt,
    completion_tokens: f.completion,
    peak_inflight_tokens: f.peakAll,
    peak_inflight_tokens_without_runaways: f.peakWithoutRunaways,
    cap_in_force: capInForce,
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
    deployments: f.deployments.map((d) => ({ deployment: d.name, calls: d.calls, peak_inflight_tokens: d.peakAll })),
    recommended: vllm && f.calls > 0 && gap === null ? recommend(f, vllm, engine) : null,
    advice_withheld: gap,
    engine_evidence: engine,
    current: vllm ? { max_model_len: vllm.maxModelLen, kv_pinned_bytes: vllm.pinnedBytes, output_cap: vllm.outputCap } : null,
  };
}
