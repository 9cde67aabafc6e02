// What the file readers and the SQL both produce per service: the same plain data, so that one report
// builder (./report.ts) renders both and a test can compare them number for number. The api_key here
// is LiteLLM's stored key hash; it never leaves ./report.ts unredacted.
import type { Quantiles } from "./histogram.js";

export interface RunawayRow {
  request_id: string;
  api_key: string;
  alias: string | null;
  prompt_tokens: number;
  completion_tokens: number;
  start_ms: number;
}

export interface KeyTally {
  api_key: string;
  alias: string | null;
  count: number;
  max_completion_tokens: number;
}

interface DeploymentFigures {
  /** api_base (else model_id) of the rows. */
  name: string;
  calls: number;
  peakAll: number;
}

export interface ServiceFigures {
  name: string;
  /** Requests the engine served: not failures, not cache hits. */
  calls: number;
  /** Requests that failed (LiteLLM status "failure"): not calls. */
  failed: number;
  /** Of those, refused for context length; `maxAsked` the most tokens one asked, when the messages say. */
  contextErrors: { count: number; maxAsked: number | null; limit: number | null };
  /** Served from LiteLLM's cache: the engine never saw them. */
  cacheHits: number;
  /** Calls by deployment, when more than one deployment served the service. */
  deployments: DeploymentFigures[];
  prompt: Quantiles;
  completion: Quantiles;
  /** Every request of the service. */
  peakAll: number;
  /** The replies an output cap would cut left out (for a seat whose cap is in force: only those above it). */
  peakWithoutRunaways: number;
  /** The reply size from which a reply is left out of peakWithoutRunaways. */
  peakCut: number;
  /** The largest reply that is not a runaway; null when every reply was one. */
  maxCompletionWithoutRunaways: number | null;
  runawayThreshold: number;
  runawayCount: number;
  /** The largest runaways (RUNAWAY_LIST of them), largest first. */
  runaways: RunawayRow[];
  runawayKeys: KeyTally[];
  firstStartMs: number;
  lastStartMs: number;
}

export interface RowCounts {
  /** Rows read (file rows, or table rows looked at). */
  read: number;
  /** Rows counted in a service. */
  used: number;
  /** Rows that could not be used (see problems). */
  skipped: number;
  /** Rows outside --since/--until. */
  outside: number;
  /** Of the used rows: failures and cache hits (not calls). */
  failed: number;
  cacheHits: number;
}

export interface RowProblem {
  file: string;
  line: number | null;
  reason: string;
}

/** How many runaway requests the report lists per service (all are counted). */
export const RUNAWAY_LIST = 100;
/** How many skipped rows are shown with their file and line (all are counted). */
export const PROBLEM_LIST = 20;

/** Largest reply first; then the earliest; then by request id: the order SQL uses too. */
export function byRunawayOrder(a: RunawayRow, b: RunawayRow): number {
  return (
    b.completion_tokens - a.completion_tokens ||
    a.start_ms - b.start_ms ||
    (a.request_id < b.request_id ? -1 : a.request_id > b.request_id ? 1 : 0)
  );
}

export function byKeyOrder(a: KeyTally, b: KeyTally): number {
  return (
    b.count - a.count || b.max_completion_tokens - a.max_completion_tokens || (a.api_key < b.api_key ? -1 : a.api_key > b.api_key ? 1 : 0)
  );
}
