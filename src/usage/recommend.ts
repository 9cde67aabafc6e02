// What a seat's settings should be for the traffic it had (docs/usage-observe.md), by the KV rule of
// section 4 (src/kv/bytes.ts requiredKv: ceil(factor × tokens × bytes per token / round) × round):
//
// - output cap: the seat's own, when it has one; else the next power of two (at least 1,024) above the
//   largest reply that was not a runaway — the cap that would have cut every runaway and nothing else.
// - max_model_len ≥ the largest prompt + that cap, rounded up to 1,024 tokens.
// - KV: what the in-flight peak needs — the runaways left out when the recommended cap would cut them,
//   every reply counted when the seat's cap is already in force (it cuts nothing further) — and never
//   less than what kv/covers-context will require for that max_model_len, so applying all three
//   raises no finding; and above the KV the engine itself preempted at, when its metrics say it did.
//
// Advice needs evidence: below --min-requests calls or --min-span of time, `usage` reports the traffic
// and says why it does not advise (evidenceGap). Each recommendation carries the evidence behind it.
import { requiredKv } from "../kv/bytes.js";
import { size } from "../kv/format.js";
import type { ServiceFigures } from "./figures.js";
import type { SeatView } from "./seats.js";

const CONTEXT_STEP = 1024;
const MIN_CAP = 1024;
const HOUR = 3_600_000;

export interface EvidenceFloor {
  minRequests: number;
  minSpanMs: number;
}

/** What the engine's own metrics said of the seat (vLLM's preemptions), from --metrics or observed.yaml. */
export interface EngineEvidence {
  source: string;
  preemptions: number;
  windows: { from: string | null; until: string; preemptions: number }[];
  peak_kv_usage: number | null;
  /** The seat's KV when it was observed; null when the source does not record it. */
  kv_bytes: number | null;
}

export interface Recommendation {
  max_model_len: number;
  kv_bytes: number | null;
  output_cap: number;
  output_cap_source: "seat" | "traffic";
  /** The parts behind kv_bytes. */
  kv_for_peak_bytes: number | null;
  kv_for_context_bytes: number | null;
  /** Set when the engine preempted at a KV at or above the others: one round above what it ran out at. */
  kv_for_preemptions_bytes: number | null;
  bytes_per_token: number | null;
  factor: number;
  round_bytes: number;
  /** What each figure was taken from. */
  evidence: {
    requests: number;
    span_hours: number;
    max_model_len_from: string;
    output_cap_from: string;
    kv_from: string;
  };
  /** Things the operator should know before applying it. */
  notes: string[];
}

export function nextPowerOfTwo(n: number): number {
  let p = MIN_CAP;
  while (p < n) p *= 2;
  return p;
}

export function spanMs(f: ServiceFigures): number {
  return f.calls === 0 ? 0 : f.lastStartMs - f.firstStartMs;
}

const hours = (ms: number): string => (ms >= 48 * HOUR ? `${(ms / (24 * HOUR)).toFixed(1)} days` : `${(ms / HOUR).toFixed(1)} h`);

/** Why the traffic is too little to advise from, or null when it is enough. */
export function evidenceGap(f: ServiceFigures, floor: EvidenceFloor): string | null {
  const span = spanMs(f);
  const short: string[] = [];
  if (f.calls < floor.minRequests) short.push(`${f.calls} request${f.calls === 1 ? "" : "s"} (--min-requests ${floor.minRequests})`);
  if (span < floor.minSpanMs) short.push(`${hours(span)} of traffic (--min-span ${hours(floor.minSpanMs)})`);
  if (short.length === 0) return null;
  return `only ${short.join(" over ")}: too little to size a seat from; lower the floor only if this traffic is the seat's whole story`;
}

export function recommend(f: ServiceFigures, seat: SeatView, engine: EngineEvidence | null = null): Recommendation {
  const notes: string[] = [];
  const cap = seat.outputCap ?? nextPowerOfTwo(f.maxCompletionWithoutRunaways ?? 0);
  const contextNeed = f.prompt.max + cap;
  const maxModelLen = Math.ceil(contextNeed / CONTEXT_STEP) * CONTEXT_STEP;
  const b = seat.bytesPerToken;
  const kv = (tokens: number): number | null =>
    b === null ? null : requiredKv({ factor: seat.factor, maxModelLen: tokens, bytesPerToken: b, roundBytes: seat.roundBytes });
  const forPeak = kv(f.peakWithoutRunaways);
  const forContext = kv(maxModelLen);
  let kvBytes = forPeak === null || forContext === null ? null : Math.max(forPeak, forContext);
  let forPreemptions: number | null = null;
  if (engine !== null && engine.preemptions > 0) {
    const ran = engine.kv_bytes;
    const when = engine.windows[0]?.from ?? engine.windows[0]?.until ?? null;
    notes.push(
      `the engine preempted ${engine.preemptions} request${engine.preemptions === 1 ? "" : "s"} ` +
        `(${engine.source}${when ? `, from ${when.slice(0, 16).replace("T", " ")} UTC` : ""})${ran === null ? "" : ` at KV ${size(ran)}`}: ` +
        `vLLM ran out of KV blocks, so the seat needed more than it had`,
    );
    if (ran !== null && kvBytes !== null && kvBytes <= ran) {
      forPreemptions = ran + seat.roundBytes;
      kvBytes = forPreemptions;
      notes.push(`the spend logs alone would advise no more than it preempted at: KV raised one kv.round above it, then observe again`);
    }
  }
  if (b === null)
    notes.push("the model's KV bytes per token are unknown (add it to kvgate.yaml models or set KV_BYTES_PER_TOKEN): no KV figure");
  if (seat.modelMaxContext !== null && maxModelLen > seat.modelMaxContext) {
    notes.push(
      `max_model_len ${maxModelLen} is above the model's native ${seat.modelMaxContext}: ` +
        `lower the output cap, or accept that the largest prompts get shorter replies`,
    );
  }
  if (seat.ownerPinned !== null && kvBytes !== null && kvBytes !== seat.ownerPinned.bytes) {
    notes.push(
      `the KV is owner-pinned${seat.ownerPinned.by ? ` by ${seat.ownerPinned.by}` : ""} (kv.seats.${seat.name}.pinned): a different pin is theirs to decide`,
    );
  }
  if (seat.outputCap === null && f.runawayCount > 0)
    notes.push(`no output cap today: ${f.runawayCount} runaway replies ran to ${f.completion.max} tokens`);
  const ce = f.contextErrors;
  if (ce.count > 0) {
    const need = ce.maxAsked === null ? null : Math.ceil(ce.maxAsked / CONTEXT_STEP) * CONTEXT_STEP;
    notes.push(
      `${ce.count} request${ce.count === 1 ? " was" : "s were"} refused for context ` +
        `length${ce.maxAsked === null ? "" : ` (the largest asked ${ce.maxAsked} tokens${ce.limit === null ? "" : ` of ${ce.limit}`})`}: ` +
        `not in the figures above; ` +
        `${need === null ? "they need a longer max_model_len than today's" : `serving them needs max_model_len ≥ ${need}`}`,
    );
  }
  if (f.deployments.length > 1) {
    notes.push(
      `${f.deployments.length} deployments serve it ` +
        `(${f.deployments.map((d) => `${d.name || "(no api_base)"}: ${d.calls} calls, peak ${d.peakAll} tokens`).join("; ")}): ` +
        `the figures are the whole group's; a seat that serves part of it needs its own share`,
    );
  }
  const capped = seat.outputCap !== null;
  return {
    max_model_len: maxModelLen,
    kv_bytes: kvBytes,
    output_cap: cap,
    output_cap_source: capped ? "seat" : "traffic",
    kv_for_peak_bytes: forPeak,
    kv_for_context_bytes: forContext,
    kv_for_preemptions_bytes: forPreemptions,
    bytes_per_token: b,
    factor: seat.factor,
    round_bytes: seat.roundBytes,
    evidence: {
      requests: f.calls,
      span_hours: Math.round((spanMs(f) / HOUR) * 10) / 10,
      max_model_len_from: `the largest prompt (p100, ${f.prompt.max} tokens) + the output cap`,
      output_cap_from: capped
        ? "the seat's cap in force"
        : `the largest reply that was not a runaway (p100, ${f.maxCompletionWithoutRunaways ?? 0} tokens)`,
      kv_from: capped
        ? `the peak in flight, the replies at the cap included (${f.peakWithoutRunaways} tokens; only replies above the cap left out)`
        : `the peak in flight without the runaways the cap cuts (${f.peakWithoutRunaways} tokens)`,
    },
    notes,
  };
}
