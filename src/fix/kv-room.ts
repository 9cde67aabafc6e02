// Whether a bigger KV pin (or a first one) still leaves every card of the seat passing: gpu/fits (the card's spare
// stays ≥ 0) and kv/boot-check of each neighbouring seat (a neighbour booting last must still find
// utilization × total free beside its own CUDA context). A pin fix that fails either would trade one refusal for another.
import type { CardUsage } from "../kv/card-usage.js";
import { footprintOf, usageOfCard } from "../kv/card-usage.js";
import { seatFootprint, type VllmSeat } from "../kv/seat.js";
import { requiredKv } from "../kv/bytes.js";

export function pinRaiseFits(usages: CardUsage[], seat: VllmSeat, newPin: number): boolean {
  for (const index of seat.cards) {
    const card = usageOfCard(usages, seat.host, index);
    if (!card || card.ledgerSized) continue;
    // What the seat holds now (an unpinned seat: utilization × total) against weights + pin + overhead.
    const cudaTotal = card.cuda_total_bytes ?? card.total_bytes;
    const delta =
      (seat.weights ?? 0) + newPin + seat.overhead - seatFootprint(seat, { totalBytes: card.total_bytes, cudaTotalBytes: cudaTotal });
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
