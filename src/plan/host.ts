// Builds the planner's input for one host from the fleet model (report/plan.ts renders the result).
// Treatment of the hard cases (documented in the plan output's notes):
// - a seat with TP > 1 (or GPU=0,1) spans several cards: it stays where it is (a fixed load on each);
// - GPU_PIN=1 on a seat, `pin: true` on a tenant: fixed;
// - a card with a radiance endpoint is sized by its ledger, not by footprints: it is left out, and
//   so is everything on it.
import type { Policy } from "../config/policy.js";
import { cudaTotalOf, type FleetState } from "../model/types.js";
import type { RulesPack } from "../rules/pack.js";
import { cardUsage } from "../kv/card-usage.js";
import { seatFootprint, vllmSeats, type VllmSeat } from "../kv/seat.js";
import { solvePlan } from "./solve.js";
import type { PlanCard, PlanFixed, PlanInput, PlanItem, PlanResult } from "./problem.js";

/**
 * The gate's shared-card rules as the planner's constraint, one floor per card: the spare the card
 * must keep with the seat on it.
 * - kv/boot-check: vLLM boots only with utilization × total free, so a seat boots last when total −
 *   (Σ footprints − its own) − its CUDA context ≥ asked, i.e. spare (total − reserve − Σ footprints) ≥
 *   asked + context − footprint − reserve. Capped at the total: alone on a card a seat always passes.
 * - kv/unpinned-shared-card: a seat without a byte pin shares its card with nobody, i.e. spare ≥
 *   total − reserve − its footprint (no other footprint on the card).
 */
export function bootFloor(
  seat: VllmSeat,
  card: { totalBytes: number; reserveBytes: number; cudaTotalBytes?: number },
  contextBytes: number,
): number {
  const footprint = seatFootprint(seat, card);
  // kv/boot-check's condition, asked ≤ CUDA total − neighbours − the seat's own CUDA context, as a
  // spare: vLLM asks utilization × what CUDA reports (cuda_total), and only that is there to give.
  // Capped at the CUDA total: alone on a card a seat is not boot-checked.
  const cudaTotal = cudaTotalOf(card);
  const asked = Math.min(Math.round(seat.utilization * cudaTotal) + contextBytes, cudaTotal);
  const boots = asked + (card.totalBytes - cudaTotal) - footprint - card.reserveBytes;
  return seat.pinned === null ? Math.max(boots, card.totalBytes - card.reserveBytes - footprint) : boots;
}

export function planInputForHost(state: FleetState, policy: Policy, pack: RulesPack, host: string): { input: PlanInput; notes: string[] } {
  const notes: string[] = [];
  const usages = cardUsage(state, policy, pack).filter((l) => l.host === host);
  const radiance = new Set(usages.filter((l) => l.ledgerSized).map((l) => l.index));
  for (const i of radiance) notes.push(`gpu ${i} holds a radiance endpoint (sized by its ledger): left out of the plan`);
  const cardsFull = state.cards.filter((c) => c.host === host && !radiance.has(c.index)).sort((a, b) => a.index - b.index);
  const cards: PlanCard[] = cardsFull.map((c) => ({ index: c.index, total_bytes: c.totalBytes, reserve_bytes: c.reserveBytes }));
  const listed = new Set(cards.map((c) => c.index));
  const items: PlanItem[] = [];
  const fixed: PlanFixed[] = [];
  for (const seat of vllmSeats(state, policy, pack)) {
    if (seat.host !== host) continue;
    if (seat.cards.some((i) => radiance.has(i))) continue;
    const pinned = seat.service.settings.gpu_pin?.value === true;
    if (pinned || seat.cards.length > 1) {
      if (seat.cards.length > 1 && !pinned) notes.push(`${seat.name} spans gpus ${seat.cards.join(",")} (TP ${seat.tp}): kept where it is`);
      for (const i of seat.cards) {
        const card = cardsFull.find((c) => c.index === i);
        if (card)
          fixed.push({
            name: seat.name,
            kind: "seat",
            card: i,
            bytes: seatFootprint(seat, card),
            boot_floor: bootFloor(seat, card, policy.vllm.context_overhead_bytes),
          });
      }
      continue;
    }
    const cur = seat.cards[0] as number;
    items.push({
      name: seat.name,
      kind: "seat",
      current: listed.has(cur) ? cur : null,
      footprints: cardsFull.map((c) => seatFootprint(seat, c)),
      boot_floors: cardsFull.map((c) => bootFloor(seat, c, policy.vllm.context_overhead_bytes)),
    });
  }
  for (const t of state.tenants) {
    // A tenant named like a seat is that seat (counted once, as the seat: fleet/tenant-is-service).
    if (
      t.host !== host ||
      radiance.has(t.gpu) ||
      items.some((i) => i.kind === "seat" && i.name === t.name) ||
      fixed.some((f) => f.kind === "seat" && f.name === t.name)
    )
      continue;
    if (t.pin) fixed.push({ name: t.name, kind: "tenant", card: t.gpu, bytes: t.vramBytes });
    else
      items.push({ name: t.name, kind: "tenant", current: listed.has(t.gpu) ? t.gpu : null, footprints: cardsFull.map(() => t.vramBytes) });
  }
  return { input: { host, cards, items, fixed }, notes };
}

/** `kvgate plan --host H`: the optimal layout (proven unless the search budget ran out, see solve.ts) of the host's seats and tenants, and the moves to it. */
export function planForHost(state: FleetState, policy: Policy, pack: RulesPack, host: string): PlanResult {
  const { input, notes } = planInputForHost(state, policy, pack, host);
  const result = solvePlan(input);
  return { ...result, notes: [...notes, ...result.notes] };
}

/** The hosts `kvgate plan` without --host covers: every host with a listed card. */
export function planHosts(state: FleetState): string[] {
  return [...new Set(state.cards.map((c) => c.host))].sort();
}
