// `kvgate plan --raise-contexts`: the owner's rule is "context up to published maximums if at all
// possible". Among the host's vLLM seats below their model's native maximum (the candidates
// kv/context-headroom looks at), find the largest set that can run at the maximum at once, and the
// layout that holds it: a raised pinned seat grows its pin to what the maximum requires (requiredAt)
// and, when its own footprint outgrows utilization × CUDA total, its utilization; a raised unpinned
// seat keeps its footprint and may only sit where the profiler's estimate holds the maximum. Each set
// is handed to the exact planner (solve.ts) with the raised footprints and boot floors, so a proposal
// keeps every card's reserve (gpu/fits) and lets every seat boot last (kv/boot-check).
import type { Policy } from "../config/policy.js";
import { cudaTotalOf, type Card, type FleetState } from "../model/types.js";
import type { RulesPack } from "../rules/pack.js";
import { requiredAt, seatFootprint, vllmSeats, type VllmSeat } from "../kv/seat.js";
import { settingFix } from "../model/setting-fix.js";
import type { ValueFix } from "../model/value-fix.js";
import { bootFloor, planInputForHost } from "./host.js";
import { solvePlan, type PlanLimits } from "./solve.js";
import type { PlanInput, PlanResult } from "./problem.js";

interface RaisedSeat {
  name: string;
  from_tokens: number;
  to_tokens: number;
  /** The pin today, or the profiler's estimate of an unpinned seat. */
  kv_from_bytes: number;
  /** What the maximum requires (the new pin of a pinned seat). */
  kv_to_bytes: number;
  kv_source: "pinned" | "estimated";
  /** The settings to write, in the file's own spelling (flag or env key). */
  fixes: ValueFix[];
}

export interface RaisePlan {
  host: string;
  /** The layout that holds the raised seats (moves included), from the exact planner. */
  layout: PlanResult;
  raised: RaisedSeat[];
  /** Candidates left at today's context, and why. */
  kept: { name: string; max_model_len: number; native_max: number; reason: string }[];
  /** Every set of the candidates was tried (false: past the budget, a greedy set is shown). */
  exhaustive: boolean;
}

interface Candidate {
  seat: VllmSeat;
  native: number;
  required: number;
  /** The seat as it would read raised (pin, context, utilization). */
  raised: VllmSeat;
}

/** Sets tried before falling back to adding candidates one at a time. */
const MAX_SETS = 256;
const SET_LIMITS: Partial<PlanLimits> = { maxNodes: 50_000, maxMillis: 150 };

/** The utilization a raised pinned seat needs so its own footprint fits what it asks on every card it may use. */
function utilizationFor(seat: VllmSeat, pin: number, cards: readonly Card[]): number {
  const own = (seat.weights ?? 0) + pin + seat.overhead;
  let need = seat.utilization;
  for (const c of cards) need = Math.max(need, Math.ceil((own / cudaTotalOf(c)) * 100 - 1e-9) / 100);
  return need;
}

/** An unpinned seat's estimate on another card: utilization × that card's CUDA total, the rest as profiled. */
function estimateOn(seat: VllmSeat, card: Card): number | null {
  const e = seat.estimate;
  return e ? Math.floor(e.bytes + e.utilization * (cudaTotalOf(card) - e.totalBytes)) : null;
}

function candidatesOf(seats: VllmSeat[], cards: Card[], round: number, kept: RaisePlan["kept"]): Candidate[] {
  const out: Candidate[] = [];
  for (const seat of seats) {
    const native = seat.model?.max_context ?? null;
    if (native === null || seat.maxModelLen === null || seat.maxModelLenAuto || seat.maxModelLen >= native) continue;
    const keep = (reason: string) => kept.push({ name: seat.name, max_model_len: seat.maxModelLen as number, native_max: native, reason });
    if (seat.ownerPinned) {
      keep("its pin is the owner's (kv.seats): raise it there");
      continue;
    }
    const required = requiredAt(seat, native, round);
    if (required === null) {
      keep("the KV its maximum needs cannot be worked out");
      continue;
    }
    if (seat.pinned === null) {
      if (!cards.some((c) => (estimateOn(seat, c) ?? -1) >= required)) {
        keep(`no card's profiler estimate holds the ${required} bytes its maximum needs: pin it`);
        continue;
      }
      out.push({ seat, native, required, raised: { ...seat, maxModelLen: native, required } });
    } else {
      const pin = Math.max(seat.pinned, required);
      out.push({
        seat,
        native,
        required,
        raised: { ...seat, maxModelLen: native, required, pinned: pin, utilization: utilizationFor(seat, pin, cards) },
      });
    }
  }
  return out;
}

/** Far past any card: a card where a raised unpinned seat's estimate would not hold its maximum. */
const NOWHERE = Number.MAX_SAFE_INTEGER / 4;

function inputFor(base: PlanInput, cards: Card[], set: Candidate[], context: number): PlanInput {
  const byName = new Map(set.map((c) => [c.seat.name, c]));
  const items = base.items.map((it) => {
    const c = it.kind === "seat" ? byName.get(it.name) : undefined;
    if (!c) return it;
    return {
      ...it,
      footprints: cards.map((card) =>
        c.raised.pinned === null && (estimateOn(c.seat, card) ?? -1) < c.required ? NOWHERE : seatFootprint(c.raised, card),
      ),
      boot_floors: cards.map((card) => bootFloor(c.raised, card, context)),
    };
  });
  const fixed = base.fixed.map((f) => {
    const c = f.kind === "seat" ? byName.get(f.name) : undefined;
    const card = cards.find((x) => x.index === f.card);
    if (!c || !card) return f;
    const short = c.raised.pinned === null && (estimateOn(c.seat, card) ?? -1) < c.required;
    return { ...f, bytes: short ? NOWHERE : seatFootprint(c.raised, card), boot_floor: bootFloor(c.raised, card, context) };
  });
  return { ...base, items, fixed };
}

const holds = (r: PlanResult): boolean => r.boots && r.worst_spare_bytes >= 0;
const better = (a: PlanResult, b: PlanResult | null): boolean => b === null || a.worst_spare_bytes > b.worst_spare_bytes;

/** Subsets of `n` items of size `k`, as index lists, in lexicographic order. */
function* subsets(n: number, k: number): Generator<number[]> {
  const idx = Array.from({ length: k }, (_, i) => i);
  if (k > n) return;
  for (;;) {
    yield [...idx];
    let i = k - 1;
    while (i >= 0 && idx[i] === n - k + i) i--;
    if (i < 0) return;
    idx[i]!++;
    for (let j = i + 1; j < k; j++) idx[j] = idx[j - 1]! + 1;
  }
}

function fixesOf(pack: RulesPack, c: Candidate): ValueFix[] {
  const fixes = [settingFix(pack, c.seat.service, "max_model_len", c.native)];
  if (c.seat.pinned !== null && c.raised.pinned !== c.seat.pinned)
    fixes.push(settingFix(pack, c.seat.service, "kv_pin", c.raised.pinned as number));
  if (c.raised.utilization !== c.seat.utilization)
    fixes.push(settingFix(pack, c.seat.service, "gpu_memory_utilization", c.raised.utilization));
  return fixes.filter((f): f is ValueFix => f !== null);
}

export function raiseContextsForHost(state: FleetState, policy: Policy, pack: RulesPack, host: string): RaisePlan {
  const { input: base, notes } = planInputForHost(state, policy, pack, host);
  const cards = base.cards.map((pc) => state.cards.find((c) => c.host === host && c.index === pc.index) as Card);
  const placed = new Set([...base.items.map((i) => i.name), ...base.fixed.map((f) => f.name)]);
  const seats = vllmSeats(state, policy, pack).filter((s) => s.host === host && placed.has(s.name));
  const kept: RaisePlan["kept"] = [];
  const cands = candidatesOf(seats, cards, policy.kv.round_bytes, kept);
  const context = policy.vllm.context_overhead_bytes;
  const withNotes = (r: PlanResult): PlanResult => ({ ...r, notes: [...notes, ...r.notes] });
  const today = solvePlan(base, SET_LIMITS);
  let best: { set: Candidate[]; result: PlanResult } | null = holds(today) ? { set: [], result: today } : null;
  let exhaustive = true;
  if (best !== null && cands.length > 0) {
    let tried = 0;
    // Largest sets first: the first size with a set that holds is the most seats raised; among those, the largest worst spare.
    search: for (let k = cands.length; k >= 1; k--) {
      let found: { set: Candidate[]; result: PlanResult } | null = null;
      for (const pick of subsets(cands.length, k)) {
        if (++tried > MAX_SETS) {
          exhaustive = false;
          break search;
        }
        const set = pick.map((i) => cands[i] as Candidate);
        const r = solvePlan(inputFor(base, cards, set, context), SET_LIMITS);
        if (holds(r) && better(r, found?.result ?? null)) found = { set, result: r };
      }
      if (found) {
        best = found;
        break;
      }
    }
    if (!exhaustive) {
      // Greedy: add candidates one at a time, the smallest growth first, keeping each that still holds.
      let set: Candidate[] = [];
      let result = today;
      for (const c of [...cands].sort(
        (a, b) => (a.raised.pinned ?? 0) - (a.seat.pinned ?? 0) - ((b.raised.pinned ?? 0) - (b.seat.pinned ?? 0)),
      )) {
        const r = solvePlan(inputFor(base, cards, [...set, c], context), SET_LIMITS);
        if (holds(r)) {
          set = [...set, c];
          result = r;
        }
      }
      if (set.length > best.set.length) best = { set, result };
    }
  }
  const chosen = new Set(best?.set.map((c) => c.seat.name) ?? []);
  for (const c of cands) {
    if (!chosen.has(c.seat.name))
      kept.push({
        name: c.seat.name,
        max_model_len: c.seat.maxModelLen as number,
        native_max: c.native,
        reason:
          best === null
            ? "no layout of today's settings passes gpu/fits and kv/boot-check: fix that first (kvgate plan)"
            : "no layout holds it at its maximum together with the seats raised (every card keeping its reserve)",
      });
  }
  kept.sort((a, b) => (a.name < b.name ? -1 : 1));
  const raised: RaisedSeat[] = (best?.set ?? [])
    .map((c) => ({
      name: c.seat.name,
      from_tokens: c.seat.maxModelLen as number,
      to_tokens: c.native,
      kv_from_bytes: c.seat.pinned ?? c.seat.estimate?.bytes ?? 0,
      kv_to_bytes: c.seat.pinned === null ? c.required : (c.raised.pinned as number),
      kv_source: c.seat.pinned === null ? ("estimated" as const) : ("pinned" as const),
      fixes: fixesOf(pack, c),
    }))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
  return { host, layout: withNotes(best?.result ?? today), raised, kept, exhaustive };
}
