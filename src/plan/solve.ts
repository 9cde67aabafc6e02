// The exact planner: assign movable seats and tenants to cards so the worst card's spare
// (total − reserve − Σ footprints) is as large as possible, and say the moves from today's layout.
// 1. prepare.ts: items largest first, cards grouped by footprint column;
// 2. heuristic.ts: the first incumbent — today's layout, then local search from it, then LPT and
//    local search from that (a later one replaces an earlier only when strictly better);
// 3. search.ts: branch and bound with a subset-sum capacity bound (subsets.ts) and symmetry breaking;
//    when it ends, the incumbent is proven optimal;
// 4. relabel.ts: among layouts as good, fewer moves.
// The search has a budget (nodes and wall time, see DEFAULT_LIMITS): past it, the result says
// `optimal: false` with the best layout found and an upper bound on the worst spare, instead of
// hanging. With them, 24 and 40 seats × 8 cards prove in at most tens of thousands of nodes when the
// bounds can see the optimum; what they cannot see (a layout 1 byte better ruled out only by how the
// seats' byte counts fall mod 0.1 GiB) is not proven by any budget a CLI can afford, so the budget is
// kept to a couple of seconds.
import { prepare, sparesOf, worstOf } from "./prepare.js";
import { startingLayouts } from "./heuristic.js";
import { rootBound, search } from "./search.js";
import { fewerMoves } from "./relabel.js";
import type { PlanInput, PlanMove, PlanResult } from "./types.js";

export interface PlanLimits {
  /** Branch-and-bound nodes before giving up the proof. */
  maxNodes: number;
  /** Wall time of the search, in milliseconds, before giving up the proof. */
  maxMillis: number;
}

export const DEFAULT_LIMITS: PlanLimits = { maxNodes: 2_000_000, maxMillis: 3_000 };

export function solvePlan(input: PlanInput, limits: Partial<PlanLimits> = {}): PlanResult {
  const { maxNodes, maxMillis } = { ...DEFAULT_LIMITS, ...limits };
  const P = prepare(input);
  let start = { worst: -Infinity, assign: [] as number[] };
  for (const a of startingLayouts(P)) {
    const w = worstOf(P, a);
    if (w > start.worst) start = { worst: w, assign: a };
  }
  const outcome = search(P, start, { maxNodes, deadline: performance.now() + maxMillis });
  const assign = fewerMoves(P, outcome.assign);
  const spare = input.cards.length === 0 ? [] : sparesOf(P, assign);
  const worst = input.cards.length === 0 ? 0 : Math.min(...spare);
  const notes: string[] = [];
  if (input.cards.length > 0 && worst < outcome.worst) notes.push("internal: relabelling lowered the worst spare");
  const bound = outcome.complete ? worst : Math.max(worst, rootBound(P, worst));
  if (!outcome.complete) notes.push(`search stopped after ${outcome.nodes} nodes: the best layout found is shown, not proven optimal (the worst spare cannot exceed ${bound} bytes)`);

  const assignment: Record<string, number | number[]> = {};
  const occupants: string[][] = input.cards.map(() => []);
  const pos = new Map(input.cards.map((c, i) => [c.index, i]));
  const multi = new Map<string, number[]>();
  for (const x of input.fixed) {
    multi.set(x.name, [...(multi.get(x.name) ?? []), x.card]);
    const p = pos.get(x.card);
    if (p !== undefined) occupants[p]!.push(x.name);
  }
  for (const [name, cards] of multi) assignment[name] = cards.length === 1 ? (cards[0] as number) : cards;
  const moves: PlanMove[] = [];
  for (let k = 0; k < P.n; k++) {
    const item = input.items[P.order[k] as number]!;
    const c = assign[k] as number;
    const to = input.cards[c]!.index;
    assignment[item.name] = to;
    occupants[c]!.push(item.name);
    if (item.current !== to) moves.push({ name: item.name, kind: item.kind, from: item.current, to });
  }
  moves.sort((a, b) => (a.name < b.name ? -1 : 1));
  const spares: Record<string, number> = {};
  input.cards.forEach((c, i) => (spares[String(c.index)] = spare[i] as number));
  const today = P.current.every((c) => c !== null) ? worstOf(P, P.current) : null;
  return {
    host: input.host,
    assignment,
    spares,
    worst_spare_bytes: worst,
    today_worst_spare_bytes: input.cards.length === 0 ? null : today,
    moves,
    cards: input.cards.map((c, i) => ({
      index: c.index,
      total_bytes: c.total_bytes,
      reserve_bytes: c.reserve_bytes,
      used_bytes: c.total_bytes - c.reserve_bytes - (spare[i] as number),
      spare_bytes: spare[i] as number,
      occupants: occupants[i]!.sort(),
    })),
    nodes: outcome.nodes,
    optimal: outcome.complete,
    worst_spare_bound_bytes: bound,
    notes,
  };
}
