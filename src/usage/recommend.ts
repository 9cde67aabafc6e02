// What a seat's settings should be for the traffic it had (contract section 16), by the KV rule of
// section 4 (src/kv/bytes.ts requiredKv: ceil(factor × tokens × bytes per token / round) × round):
//
// - output cap: the seat's own, when it has one; else the next power of two (at least 1,024) above the
//   largest reply that was not a runaway — the cap that would have cut every runaway and nothing else.
// - max_model_len ≥ the largest prompt + that cap, rounded up to 1,024 tokens.
// - KV: what the in-flight peak needs (runaways left out: the cap cuts them), and never less than what
//   kv/covers-context will require for that max_model_len — so applying all three raises no finding.
import { requiredKv } from "../kv/bytes.js";
import type { ServiceFigures } from "./figures.js";
import type { SeatView } from "./seats.js";

const CONTEXT_STEP = 1024;
const MIN_CAP = 1024;

export interface Recommendation {
  max_model_len: number;
  kv_bytes: number | null;
  output_cap: number;
  output_cap_source: "seat" | "traffic";
  /** The parts behind kv_bytes. */
  kv_for_peak_bytes: number | null;
  kv_for_context_bytes: number | null;
  bytes_per_token: number | null;
  factor: number;
  round_bytes: number;
  /** Things the operator should know before applying it. */
  notes: string[];
}

export function nextPowerOfTwo(n: number): number {
  let p = MIN_CAP;
  while (p < n) p *= 2;
  return p;
}

export function recommend(f: ServiceFigures, seat: SeatView): Recommendation {
  const notes: string[] = [];
  const cap = seat.outputCap ?? nextPowerOfTwo(f.maxCompletionWithoutRunaways ?? 0);
  const contextNeed = f.prompt.max + cap;
  const maxModelLen = Math.ceil(contextNeed / CONTEXT_STEP) * CONTEXT_STEP;
  const b = seat.bytesPerToken;
  const kv = (tokens: number): number | null =>
    b === null ? null : requiredKv({ factor: seat.factor, maxModelLen: tokens, bytesPerToken: b, roundBytes: seat.roundBytes });
  const forPeak = kv(f.peakWithoutRunaways);
  const forContext = kv(maxModelLen);
  const kvBytes = forPeak === null || forContext === null ? null : Math.max(forPeak, forContext);
  if (b === null)
    notes.push("the model's KV bytes per token are unknown (add it to kvgate.yaml models or set KV_BYTES_PER_TOKEN): no KV figure");
  if (seat.modelMaxContext !== null && maxModelLen > seat.modelMaxContext) {
    notes.push(
      `max_model_len ${maxModelLen} is above the model's native ${seat.modelMaxContext}: lower the output cap, or accept that the largest prompts get shorter replies`,
    );
  }
  if (seat.ownerPinned !== null && kvBytes !== null && kvBytes !== seat.ownerPinned.bytes) {
    notes.push(
      `the KV is owner-pinned${seat.ownerPinned.by ? ` by ${seat.ownerPinned.by}` : ""} (kv.seats.${seat.name}.pinned): a different pin is theirs to decide`,
    );
  }
  if (seat.outputCap === null && f.runawayCount > 0)
    notes.push(`no output cap today: ${f.runawayCount} runaway replies ran to ${f.completion.max} tokens`);
  return {
    max_model_len: maxModelLen,
    kv_bytes: kvBytes,
    output_cap: cap,
    output_cap_source: seat.outputCap === null ? "traffic" : "seat",
    kv_for_peak_bytes: forPeak,
    kv_for_context_bytes: forContext,
    bytes_per_token: b,
    factor: seat.factor,
    round_bytes: seat.roundBytes,
    notes,
  };
}
