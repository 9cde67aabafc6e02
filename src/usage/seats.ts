// What `usage` needs to know of each service in the working tree: for vLLM seats the numbers the KV
// rule uses (bytes per token, factor, rounding), today's context, pin and output cap (src/kv/seat.ts,
// the same code the KV checks run), so that a recommendation is the rule's own arithmetic.
import type { Policy } from "../config/policy.js";
import type { FleetState } from "../model/types.js";
import type { RulesPack } from "../rules/pack.js";
import { seatOf } from "../kv/seat.js";
import { outputCapOf } from "../kv/yarn.js";

export interface SeatView {
  name: string;
  engine: string | null;
  /** vLLM seats only (null otherwise): */
  bytesPerToken: number | null;
  factor: number;
  roundBytes: number;
  maxModelLen: number | null;
  pinnedBytes: number | null;
  /** kv.seats.<name>.pinned: the owner's number, and who owns it. */
  ownerPinned: { bytes: number; by: string | null } | null;
  outputCap: number | null;
  modelMaxContext: number | null;
}

export function seatViews(fleet: FleetState, policy: Policy, pack: RulesPack): Map<string, SeatView> {
  const out = new Map<string, SeatView>();
  for (const service of fleet.services) {
    if (service.engine !== "vllm") {
      out.set(service.name, {
        name: service.name,
        engine: service.engine,
        bytesPerToken: null,
        factor: policy.kv.factor,
        roundBytes: policy.kv.round_bytes,
        maxModelLen: null,
        pinnedBytes: null,
        ownerPinned: null,
        outputCap: null,
        modelMaxContext: null,
      });
      continue;
    }
    const seat = seatOf(service, policy, pack);
    const owner = seat.policy?.pinned_bytes;
    out.set(service.name, {
      name: service.name,
      engine: "vllm",
      bytesPerToken: seat.perToken?.bytes ?? null,
      factor: seat.factor,
      roundBytes: policy.kv.round_bytes,
      maxModelLen: seat.maxModelLen,
      pinnedBytes: seat.pinned,
      ownerPinned: owner === undefined ? null : { bytes: owner, by: seat.policy?.by ?? null },
      outputCap: outputCapOf(service)?.cap ?? null,
      modelMaxContext: seat.model?.max_context ?? null,
    });
  }
  return out;
}

/** The completion size from which a reply is a runaway: usage.runaway_tokens, or the seat's cap when lower. */
export function runawayThreshold(seat: SeatView | undefined, runawayTokens: number): number {
  const cap = seat?.outputCap ?? null;
  return cap !== null && cap < runawayTokens ? cap : runawayTokens;
}
