// Per card: who sits on it and what each holds (docs/vllm-sizing.md#the-card). The card table of `explain`,
// `gpu/fits`, the shared-card rules and the planner all read this usage.
import type { Policy } from "../config/policy.js";
import { cudaTotalOf, type Card, type FleetState } from "../model/types.js";
import type { RulesPack } from "../rules/pack.js";
import { seatCardsOf, seatFootprint, vllmSeats, type VllmSeat } from "./seat.js";
import { sizesKvByLedger, sizesKvPerSeat } from "../model/engine.js";

interface SeatEntry {
  kind: "seat";
  name: string;
  seat: VllmSeat;
  weights_bytes: number | null;
  /** The pin, or for a utilization-sized seat what profiling would leave: util × total − weights − overhead. */
  kv_bytes: number;
  overhead_bytes: number;
  footprint_bytes: number;
  pinned: boolean;
}

interface TenantEntry {
  kind: "tenant";
  name: string;
  footprint_bytes: number;
  pin: boolean;
}

/** A service of an engine not sized per seat (radiance) on the card: its footprint is not a seat figure. */
interface OtherEntry {
  kind: "other";
  name: string;
  engine: string | null;
}

export type CardEntry = SeatEntry | TenantEntry | OtherEntry;

export interface CardUsage {
  host: string;
  index: number;
  /** The card's model as the inventory names it (`A100-SXM4-80GB`), when it does. */
  name?: string;
  total_bytes: number;
  reserve_bytes: number;
  entries: CardEntry[];
  /** Σ footprints of the seats and tenants (other engines' services are not counted). */
  used_bytes: number;
  /** What CUDA reports as the card's total (kvgate.yaml's cuda_total, else total): vLLM's utilization multiplies it. */
  cuda_total_bytes?: number;
  /** total − reserve − used. */
  spare_bytes: number;
  /** More than one occupant of any kind. */
  shared: boolean;
  /** An endpoint funded by its boot ledger (radiance) lives here: section 6 checks this card, not gpu/fits. */
  ledgerSized: boolean;
  /** vllm.context_overhead: what a booting vLLM seat's own CUDA context takes before it measures free memory. */
  context_overhead_bytes?: number;
}

function seatEntry(seat: VllmSeat, card: Card): SeatEntry {
  const footprint = seatFootprint(seat, card);
  // An unpinned seat: the profiler's per-seat estimate on this card (overhead + graphs inside the budget).
  const e = seat.pinned === null && seat.estimate && seat.estimate.totalBytes === cudaTotalOf(card) ? seat.estimate : null;
  const overhead = e ? e.overhead.bytes + e.graphsBytes : seat.overhead;
  const kv = seat.pinned ?? Math.max(0, footprint - (seat.weights ?? 0) - overhead);
  return {
    kind: "seat",
    name: seat.name,
    seat,
    weights_bytes: seat.weights,
    kv_bytes: kv,
    overhead_bytes: overhead,
    footprint_bytes: footprint,
    pinned: seat.pinned !== null,
  };
}

export function cardUsage(state: FleetState, policy: Policy, pack: RulesPack): CardUsage[] {
  const seats = vllmSeats(state, policy, pack);
  return state.cards.map((card) => {
    const entries: CardEntry[] = [];
    for (const seat of seats) {
      if (seat.host !== card.host || !seat.cards.includes(card.index)) continue;
      // Each replica (compose deploy.replicas) is a container of its own on these cards.
      const replicas = seat.service.replicas ?? 1;
      for (let r = 1; r <= replicas; r++) {
        const e = seatEntry(seat, card);
        entries.push(r === 1 ? e : { ...e, name: `${seat.name} (replica ${r})` });
      }
    }
    // One process, one entry: a tenant named like a seat is the seat (fleet/tenant-is-service says so),
    // and a tenant named like a service the gate does not size is that service's footprint.
    const seatNames = new Set(seats.map((s) => s.name));
    const tenantNames = new Set<string>();
    for (const t of state.tenants) {
      if (t.host !== card.host || t.gpu !== card.index || seatNames.has(t.name)) continue;
      tenantNames.add(t.name);
      entries.push({ kind: "tenant", name: t.name, footprint_bytes: t.vramBytes, pin: t.pin });
    }
    let ledgerSized = false;
    for (const s of state.services) {
      if (sizesKvPerSeat(pack, s) || s.host !== card.host || !seatCardsOf(s).includes(card.index)) continue;
      if (s.engine === null && s.gpus.length === 0) continue;
      if (sizesKvByLedger(pack, s)) ledgerSized = true;
      if (tenantNames.has(s.name)) continue;
      entries.push({ kind: "other", name: s.name, engine: s.engine });
    }
    let used = 0;
    for (const e of entries) if (e.kind !== "other") used += e.footprint_bytes;
    return {
      host: card.host,
      index: card.index,
      ...(card.name === undefined ? {} : { name: card.name }),
      total_bytes: card.totalBytes,
      cuda_total_bytes: cudaTotalOf(card),
      reserve_bytes: card.reserveBytes,
      entries,
      used_bytes: used,
      spare_bytes: card.totalBytes - card.reserveBytes - used,
      shared: entries.length > 1,
      ledgerSized,
      context_overhead_bytes: policy.vllm.context_overhead_bytes,
    };
  });
}

/** The usage of the card a seat sits on (first match), or undefined for a card the fleet does not list. */
export function usageOfCard(cards: CardUsage[], host: string | null, index: number): CardUsage | undefined {
  return cards.find((l) => l.host === host && l.index === index);
}

/** Footprint of an entry; null for another engine's service. */
export function footprintOf(e: CardEntry): number | null {
  return e.kind === "other" ? null : e.footprint_bytes;
}
