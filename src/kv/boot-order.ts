// The boot order of a shared card that leaves the least free memory, for `kvgate explain`. vLLM
// refuses to start unless utilization × total is free when it boots, byte pin or not; a seat finds
// the least free memory when it boots last, behind every neighbour's footprint. Over all orders the
// tightest moment is therefore the seat whose free-at-boot minus its ask is smallest, booting last:
// that is the order shown, with the figure kv/boot-check compares.
import type { CardUsage } from "./card-usage.js";
import { footprintOf } from "./card-usage.js";

export interface WorstBoot {
  /** Everyone on the card in that order: the neighbours (largest first), then `last`. */
  order: string[];
  /** The vLLM seat that boots last. */
  last: string;
  /** total − Σ the neighbours' footprints − its own CUDA context: free memory when `last` measures. */
  free_bytes: number;
  /** round(utilization × total): what vLLM needs free to boot it. */
  asked_bytes: number;
  /** free − asked: below 0, the seat fails to boot in this order (kv/boot-check). */
  margin_bytes: number;
  /** Neighbours whose footprint kvgate does not size (another engine's service): counted as 0. */
  uncounted: string[];
}

/** The worst boot order of a shared card with at least one vLLM seat; null otherwise. */
export function worstBootOrder(l: CardUsage): WorstBoot | null {
  if (!l.shared) return null;
  let worst: WorstBoot | null = null;
  for (const e of l.entries) {
    if (e.kind !== "seat") continue;
    const others = l.entries.filter((o) => o !== e);
    const held = others.reduce((n, o) => n + (footprintOf(o) ?? 0), 0);
    const cudaTotal = l.cuda_total_bytes ?? l.total_bytes;
    const free = cudaTotal - held - (l.context_overhead_bytes ?? 0);
    const asked = Math.round(e.seat.utilization * cudaTotal);
    const margin = free - asked;
    if (worst && (margin > worst.margin_bytes || (margin === worst.margin_bytes && e.name > worst.last))) continue;
    const first = [...others].sort((a, b) => (footprintOf(b) ?? 0) - (footprintOf(a) ?? 0) || (a.name < b.name ? -1 : 1));
    worst = {
      order: [...first.map((o) => o.name), e.name],
      last: e.name,
      free_bytes: free,
      asked_bytes: asked,
      margin_bytes: margin,
      uncounted: others.filter((o) => footprintOf(o) === null).map((o) => o.name),
    };
  }
  return worst;
}
