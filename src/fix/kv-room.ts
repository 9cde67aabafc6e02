// Whether a bigger KV pin (or a first one) still leaves every card of the seat passing: gpu/fits (the card's spare
// stays ≥ 0) and kv/boot-check of each neighbouring seat (a neighbour booting last must still find
// utilization × total free beside its own CUDA context). A pin fix that fails either would trade one refusal for another.
import type { CardUsage } from "../kv/card-usage.js";
import { footprintOf, usageOfCard } from "../kv/card-usage.js";
import { seatFootprint, type VllmSeat } from "../kv/seat.js";
import { requiredKv } from "../kv/bytes.js";

export function pinRaiseFits(usages: CardUsage[], seat: VllmSeat, newPin: number): boolean {
  return growthFits(
    usages,
    seat,
    (cudaTotal, totalBytes) =>
      (seat.weights ?? 0) + newPin + seat.overhead - seatFootprint(seat, { totalBytes, cudaTotalBytes: cudaTotal }),
  );
}

/**
 * Whether an unpinned seat may take `utilization` of its cards: the same two tests as a pin raise
 * (gpu/fits, and every neighbour's boot), for the footprint utilization × CUDA total.
 */
export function utilizationRaiseFits(usages: CardUsage[], seat: VllmSeat, utilization: number): boolean {
  return growthFits(usages, seat, (cudaTotal) => Math.round((utilization - seat.utilization) * cudaTotal));
}

/** The utilization, to the hundredth above, at which vLLM's profiler leaves an unpinned seat `kvBytes`
 *  (the inverse of its estimate: KV + weights + overhead + graphs inside the budget); null without an estimate. */
export function utilizationFor(seat: VllmSeat, kvBytes: number): number | null {
  const e = seat.estimate;
  if (!e) return null;
  const needed = kvBytes + e.weightsPerGpu + e.overhead.bytes + e.graphsBytes;
  return Math.ceil((needed / e.totalBytes) * 100) / 100;
}

function growthFits(usages: CardUsage[], seat: VllmSeat, deltaOf: (cudaTotal: number, totalBytes: number) => number): boolean {
  for (const index of seat.cards) {
    const card = usageOfCard(usages, seat.host, index);
    if (!card || card.ledgerSized) continue;
    // What the seat holds now (an unpinned seat: utilization × total) against what it would hold.
    const cudaTotal = card.cuda_total_bytes ?? card.total_bytes;
    const delta = deltaOf(cudaTotal, card.total_bytes);
    if (delta <= 0) continue; // holding less can break nothing
    if (card.spare_bytes - delta < 0) return false;
    for (const e of card.entries) {
      if (e.kind !== "seat" || e.name === seat.name) continue;
      const others = card.entries.filter((x) => x.name !== e.name).reduce((n, x) => n + (footprintOf(x) ?? 0), 0) + delta;
      if (Math.round(e.seat.utilization * cudaTotal) > cudaTotal - others - (card.context_overhead_bytes ?? 0)) return false;
    }
  }
  return true;
}

/**
 * The longest context (a multiple of 1,024 tokens when above it) whose required KV the seat's pin
 * holds, by the flat per-token rule: the fix when raising the pin would overfill the card. null when
 * not even 1,024 tokens fit.
 */
export function contextThatFits(seat: VllmSeat, roundBytes: number): number | null {
  const b = seat.perToken?.bytes;
  if (!b || seat.pinned === null) return null;
  const fits = (len: number) =>
    requiredKv({ factor: seat.factor, maxModelLen: len, bytesPerToken: b, roundBytes }) <= (seat.pinned as number);
  let lo = 0;
  let hi = seat.maxModelLen ?? 0;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(mid)) lo = mid;
    else hi = mid - 1;
  }
  const len = lo >= 1024 ? Math.floor(lo / 1024) * 1024 : 0;
  return len > 0 ? len : null;
}
