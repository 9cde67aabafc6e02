// The exact planner: assign movable seats and tenants to cards so the worst card's spare
// (total − reserve − Σ footprints) is as large as possible, and say the moves from today's layout.
// 1. prepare.ts: items largest first, cards grouped by footprint column;
// 2. heuristic.ts: the first incumbent — today's layout, then local search from it, then LPT and
//    local search from that (a later one replaces an earlier only when strictly better);
// 3. search.ts: branch and bound with a subset-sum capacity bound (subsets.ts) and symmetry breaking;
//    when it ends, the incumbent is proven optimal;
// 4. relabel.ts: among layouts as good, fewer moves.
// kv/boot-check is a constraint of every step, not a filter afterwards: a layout in which some vLLM
// seat could not boot last behind its neighbours is never an incumbent, so "optimal" means optimal
// among the layouts the gate passes (gpu/fits then holds too whenever the worst spare is ≥ 0).
// The proof has a grain (DEFAULT_LIMITS.resolutionBytes, 1 MiB): a layout is proven optimal when no
// layout's worst spare is a grain or more above it. Footprints are byte counts, and ruling out a
// layout 1 byte better is number partitioning in its hard phase (no budget a CLI affords proves it);
// 1 MiB is below what nvidia-smi reports and below any footprint's precision. Fleets sized in whole
// MiB are proven to the byte. The search also has a budget (nodes and wall time): past it, the result
// says `optimal: false` with the best layout found and an upper bound on the worst spare.
import { bootsOk, prepare, scoreOf, sparesOf } from "./prepare.js";
import { startingLayouts } from "./heuristic.js";
import { rootBound, search } from "./search.js";
import { fewerMoves } from "./relabel.js";
import type { PlanInput, PlanMove, PlanResult } from "./problem.js";

export interface PlanLimits {
  /** Branch-and-bound nodes before giving up the proof. */
  maxNodes: number;
  /** Wall time of the search, in milliseconds, before giving up the proof. */
  maxMillis: number;
  /** The proof's grain: worst spares closer than this count as equal (1 = to the byte). */
  resolutionBytes: number;
}

const DEFAULT_LIMITS: PlanLimits = { maxNodes: 2_000_000, maxMillis: 2_500, resolutionBytes: 2 ** 20 };

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}

/** The step between two layouts' worst spares: every spare is base − Σ footprints, so a multiple of their gcd. */
function spareStep(input: PlanInput): number {
  let g = 0;
  for (const c of input.cards) g = gcd(g, Math.abs(c.total_bytes - c.reserve_bytes));
  for (const x of input.fixed) g = gcd(g, Math.abs(x.bytes));
  for (const it of input.items) for (const b of it.footprints) g = gcd(g, Math.abs(b));
  return Number.isInteger(g) && g > 0 ? g : 1;
}

export function solvePlan(input: PlanInput, limits: Partial<PlanLimits> = {}): PlanResult {
  const { maxNodes, maxMillis, resolutionBytes } = { ...DEFAULT_LIMITS, ...limits };
  const P = prepare(input);
  const layouts = startingLayouts(P);
  let start = { worst: -Infinity, assign: layouts[0] ?? [] };
  for (const a of layouts) {
    const w = scoreOf(P, a);
    if (w > start.worst) start = { worst: w, assign: a };
  }
  // Worst spares move in steps of `step`: a grain below one step is the exact search.
  const step = spareStep(input);
  const resolution = Math.max(step, Math.floor(resolutionBytes / step) * step);
  const outcome = search(P, start, { maxNodes, deadline: performance.now() + maxMillis, resolution });
  const boots = outcome.worst > -Infinity;
  const assign = boots ? fewerMoves(P, outcome.assign) : outcome.assign;
  const spare = input.cards.length === 0 ? [] : sparesOf(P, assign);
  const worst = input.cards.length === 0 ? 0 : Math.min(...spare);
  const notes: string[] = [];
  if (boots && input.cards.length > 0 && (worst < outcome.worst || !bootsOk(P, assign)))
    notes.push("internal: relabelling lowered the worst spare");
  // Complete: nothing reaches worst + resolution. Stopped: the bound's own figure.
  const bound = !boots ? worst : outcome.complete ? worst + resolution - step : Math.max(worst, rootBound(P, worst));
  if (!boots)
    notes.push(
      outcome.complete
        ? "no layout lets every vLLM seat boot last behind its neighbours (kv/boot-check): lower " +
            "GPU_MEMORY_UTILIZATION of the seats that share a card, or move a seat to another host"
        : `search stopped after ${outcome.nodes} nodes without a layout that lets every vLLM seat boot last (kv/boot-check)`,
    );
  else if (!outcome.complete) notes.push(`search stopped after ${outcome.nodes} nodes: the best layout found is shown, not proven optimal`);

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
  const today = P.current.every((c) => c !== null) ? Math.min(...sparesOf(P, P.current)) : null;
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
    optimal: outcome.complete && boots,
    worst_spare_bound_bytes: bound,
    // Worst spares step by `step`: a grain of one step is the exact proof.
    resolution_bytes: resolution === step ? 1 : resolution,
    boots,
    notes,
  };
}
