// The exact planner: assign movable seats and tenants to cards so the worst card's spare
// (total − reserve − Σ footprints) is as large as possible. Depth-first branch and bound:
// - items go largest first; a node is cut unless it can still beat the best layout found: the
//   smallest spare now (spares only shrink), the mean spare after the remaining items, and a
//   bin-packing bound — to beat the best, card c must keep its added load below room_c = spare_c −
//   best, so for every size s the remaining items of size ≥ s must total less than the room of the
//   cards whose room exceeds s;
// - a subtree is cut when its bound cannot beat the best layout found, so the result is proven
//   optimal when the search ends;
// - symmetry: two cards alike for every item (same total, reserve-free capacity and footprints) with
//   the same spare at a node are tried once; identical items take non-decreasing card positions.
// Ties keep the incumbent, and today's layout is the first incumbent, so a layout that is already
// optimal yields no moves. After the search, contents of alike cards and identical items are
// relabelled to keep as many things where they are as possible (fewest moves among the layouts
// equivalent to the one found; the worst spare is unchanged by the relabelling).
import type { PlanInput, PlanMove, PlanResult } from "./types.js";

interface Prepared {
  C: number;
  n: number;
  /** footprints by search order. */
  f: number[][];
  order: number[];
  base: number[];
  cls: number[];
  remMin: number[];
  /** suffixMin[k][c]: the smallest footprint on card c among items k.. (Infinity past the end). */
  suffixMin: number[][];
  identicalPrev: boolean[];
  /** Every item weighs the same on every card (the usual case): enables the threshold bound. */
  uniform: boolean;
  current: (number | null)[];
}

function sameVector(a: number[], b: number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function prepare(input: PlanInput): Prepared {
  const C = input.cards.length;
  const pos = new Map(input.cards.map((c, i) => [c.index, i]));
  const base = input.cards.map((c) => c.total_bytes - c.reserve_bytes);
  for (const x of input.fixed) {
    const p = pos.get(x.card);
    if (p !== undefined) base[p] = (base[p] as number) - x.bytes;
  }
  const maxOf = (v: number[]) => Math.max(...v);
  const order = input.items
    .map((_, i) => i)
    .sort((a, b) => {
      const fa = input.items[a]!.footprints;
      const fb = input.items[b]!.footprints;
      const d = maxOf(fb) - maxOf(fa);
      if (d !== 0) return d;
      for (let c = 0; c < C; c++) if (fa[c] !== fb[c]) return (fb[c] as number) - (fa[c] as number);
      return input.items[a]!.name < input.items[b]!.name ? -1 : 1;
    });
  const f = order.map((i) => input.items[i]!.footprints.slice());
  const n = f.length;
  const remMin = new Array<number>(n + 1).fill(0);
  for (let k = n - 1; k >= 0; k--) remMin[k] = (remMin[k + 1] as number) + Math.min(...(f[k] as number[]));
  const suffixMin: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(C).fill(Infinity));
  for (let k = n - 1; k >= 0; k--) for (let c = 0; c < C; c++) suffixMin[k]![c] = Math.min(suffixMin[k + 1]![c] as number, f[k]![c] as number);
  const identicalPrev = f.map((v, k) => k > 0 && sameVector(v, f[k - 1] as number[]));
  // Cards alike for the search: same capacity and the same footprint of every item.
  const cls: number[] = [];
  for (let c = 0; c < C; c++) {
    let found = -1;
    for (let d = 0; d < c; d++) {
      const cd = input.cards[d]!;
      const cc = input.cards[c]!;
      if (cd.total_bytes - cd.reserve_bytes === cc.total_bytes - cc.reserve_bytes && f.every((v) => v[c] === v[d])) {
        found = cls[d] as number;
        break;
      }
    }
    cls.push(found >= 0 ? found : c);
  }
  const current = order.map((i) => {
    const cur = input.items[i]!.current;
    return cur === null ? null : (pos.get(cur) ?? null);
  });
  const uniform = f.every((v) => v.every((x) => x === v[0]));
  return { C, n, f, order, base, cls, remMin, suffixMin, identicalPrev, uniform, current };
}

function worstOf(P: Prepared, assign: number[]): number {
  const spare = P.base.slice();
  for (let k = 0; k < P.n; k++) spare[assign[k] as number] = (spare[assign[k] as number] as number) - (P.f[k]![assign[k] as number] as number);
  return Math.min(...spare);
}

/** Best worst spare and an assignment (by search order, card positions). */
function search(P: Prepared): { worst: number; assign: number[]; nodes: number } {
  const { C, n, f } = P;
  let bestWorst = -Infinity;
  let best: number[] = [];
  if (P.current.every((c) => c !== null)) {
    best = P.current as number[];
    bestWorst = worstOf(P, best);
  }
  // A greedy incumbent (each item to the card it leaves the most spare on) tightens the first cuts.
  const greedy: number[] = [];
  const gs = P.base.slice();
  for (let k = 0; k < n; k++) {
    let bc = 0;
    for (let c = 1; c < C; c++) if ((gs[c] as number) - (f[k]![c] as number) > (gs[bc] as number) - (f[k]![bc] as number)) bc = c;
    greedy.push(bc);
    gs[bc] = (gs[bc] as number) - (f[k]![bc] as number);
  }
  const gw = n === 0 ? Math.min(...P.base) : Math.min(...gs);
  if (gw > bestWorst) {
    bestWorst = gw;
    best = greedy;
  }
  const spare = P.base.slice();
  const assign = new Array<number>(n).fill(0);
  let nodes = 0;
  const cands = new Array<number>(C);
  const rooms = new Array<number>(C).fill(0);

  const dfs = (k: number): void => {
    nodes++;
    let mn = Infinity;
    let sum = 0;
    for (let c = 0; c < C; c++) {
      const s = spare[c] as number;
      if (s < mn) mn = s;
      sum += s;
    }
    if (k === n) {
      if (mn > bestWorst) {
        bestWorst = mn;
        best = assign.slice();
      }
      return;
    }
    const ub = Math.min(mn, (sum - (P.remMin[k] as number)) / C);
    if (ub <= bestWorst) return;
    // To beat bestWorst every card must keep load < spare − bestWorst; a card whose room is below its
    // smallest remaining footprint takes nothing, so only the other cards' room can hold the rest.
    let room = 0;
    const sm = P.suffixMin[k] as number[];
    for (let c = 0; c < C; c++) {
      const r = (spare[c] as number) - bestWorst;
      if (r > (sm[c] as number)) room += r;
    }
    if (room <= (P.remMin[k] as number)) return;
    // The same for every size s among the remaining items (they come largest first): the items of
    // size ≥ s fit only on cards with room > s, and must leave a total below those cards' room.
    if (P.uniform) {
      for (let c = 0; c < C; c++) rooms[c] = (spare[c] as number) - bestWorst;
      rooms.sort((a, b) => b - a);
      let acc = 0;
      let j = k;
      let open = 0;
      let openRoom = 0;
      while (j < n) {
        const sz = f[j]![0] as number;
        while (j < n && (f[j]![0] as number) === sz) acc += f[j++]![0] as number;
        while (open < C && (rooms[open] as number) > sz) openRoom += rooms[open++] as number;
        if (acc >= openRoom) return;
      }
    }
    const fk = f[k] as number[];
    const start = P.identicalPrev[k] ? (assign[k - 1] as number) : 0;
    let m = 0;
    for (let c = start; c < C; c++) if ((spare[c] as number) - (fk[c] as number) > bestWorst) cands[m++] = c;
    const list = cands.slice(0, m);
    const cur = P.current[k];
    list.sort((a, b) => (a === cur ? -1 : b === cur ? 1 : (spare[b] as number) - (fk[b] as number) - ((spare[a] as number) - (fk[a] as number)) || a - b));
    const tried: number[] = [];
    for (const c of list) {
      const s = spare[c] as number;
      if (s - (fk[c] as number) <= bestWorst) continue;
      if (tried.some((t) => P.cls[t] === P.cls[c] && spare[t] === s)) continue;
      tried.push(c);
      spare[c] = s - (fk[c] as number);
      assign[k] = c;
      dfs(k + 1);
      spare[c] = s;
    }
  };
  if (C > 0) dfs(0);
  return { worst: bestWorst, assign: best, nodes };
}

/** The permutation of `cl` maximising Σ stay[i][perm[i]]: an assignment problem, by DP over subsets. */
function bestPermutation(stay: number[][]): number[] {
  const m = stay.length;
  const full = (1 << m) - 1;
  const best = new Array<number>(1 << m).fill(-Infinity);
  const choice = new Array<number>(1 << m).fill(-1);
  best[0] = 0;
  for (let mask = 0; mask < full; mask++) {
    const b = best[mask] as number;
    if (b === -Infinity) continue;
    let i = 0;
    for (let x = mask; x; x &= x - 1) i++;
    for (let j = 0; j < m; j++) {
      if (mask & (1 << j)) continue;
      const next = mask | (1 << j);
      const v = b + (stay[i]![j] as number);
      if (v > (best[next] as number)) {
        best[next] = v;
        choice[next] = j;
      }
    }
  }
  const perm = new Array<number>(m).fill(0);
  let mask = full;
  for (let i = m - 1; i >= 0; i--) {
    const j = choice[mask] as number;
    perm[i] = j;
    mask &= ~(1 << j);
  }
  return perm;
}

/** Keeps as much as possible in place without changing any card's load (see the header). */
function relabel(P: Prepared, input: PlanInput, assign: number[]): number[] {
  const { C, n, f } = P;
  const group = f.map((v, k) => {
    for (let j = 0; j < k; j++) if (sameVector(v, f[j] as number[])) return j;
    return k;
  });
  const groups = [...new Set(group)];
  // Permute the contents of cards alike in capacity, fixed load and footprints.
  const out = assign.slice();
  const alike: number[][] = [];
  for (let c = 0; c < C; c++) {
    const home = alike.find((cl) => P.cls[cl[0] as number] === P.cls[c] && P.base[cl[0] as number] === P.base[c]);
    if (home) home.push(c);
    else alike.push([c]);
  }
  for (const cl of alike) {
    if (cl.length < 2 || cl.length > 16) continue;
    const onCard = (which: (k: number) => number | null, c: number) => {
      const counts = new Map<number, number>();
      for (let k = 0; k < n; k++) if (which(k) === c) counts.set(group[k] as number, (counts.get(group[k] as number) ?? 0) + 1);
      return counts;
    };
    const holds = cl.map((c) => onCard((k) => out[k] as number, c));
    const had = cl.map((c) => onCard((k) => P.current[k] ?? null, c));
    const stay = holds.map((h) => had.map((t) => [...h].reduce((s, [g, x]) => s + Math.min(x, t.get(g) ?? 0), 0)));
    const bestPerm = bestPermutation(stay).map((j) => cl[j] as number);
    const map = new Map(cl.map((from, i) => [from, bestPerm[i] as number]));
    for (let k = 0; k < n; k++) out[k] = map.get(out[k] as number) ?? (out[k] as number);
  }
  // Identical items: those already on a card keep its slots first.
  for (const g of groups) {
    const members = [...Array(n).keys()].filter((k) => group[k] === g);
    if (members.length < 2) continue;
    const slots = new Map<number, number>();
    for (const k of members) slots.set(out[k] as number, (slots.get(out[k] as number) ?? 0) + 1);
    const placed = new Map<number, number>();
    const left: number[] = [];
    for (const k of members) {
      const cur = P.current[k];
      if (cur !== null && cur !== undefined && (slots.get(cur) ?? 0) > 0) {
        placed.set(k, cur);
        slots.set(cur, (slots.get(cur) as number) - 1);
      } else left.push(k);
    }
    for (const k of left) {
      const c = [...slots.entries()].find(([, v]) => v > 0)?.[0] as number;
      placed.set(k, c);
      slots.set(c, (slots.get(c) as number) - 1);
    }
    for (const [k, c] of placed) out[k] = c;
  }
  void input;
  return out;
}

export function solvePlan(input: PlanInput): PlanResult {
  const P = prepare(input);
  const { worst, assign: found, nodes } = search(P);
  const assign = relabel(P, input, found);
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
  const spare = P.base.slice();
  const moves: PlanMove[] = [];
  for (let k = 0; k < P.n; k++) {
    const item = input.items[P.order[k] as number]!;
    const c = assign[k] as number;
    spare[c] = (spare[c] as number) - (P.f[k]![c] as number);
    const to = input.cards[c]!.index;
    assignment[item.name] = to;
    occupants[c]!.push(item.name);
    if (item.current !== to) moves.push({ name: item.name, kind: item.kind, from: item.current, to });
  }
  moves.sort((a, b) => (a.name < b.name ? -1 : 1));
  const spares: Record<string, number> = {};
  input.cards.forEach((c, i) => (spares[String(c.index)] = spare[i] as number));
  const today = P.current.every((c) => c !== null) ? worstOf(P, P.current as number[]) : null;
  return {
    host: input.host,
    assignment,
    spares,
    worst_spare_bytes: input.cards.length === 0 ? 0 : Math.min(...spare),
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
    nodes,
    optimal: true,
    notes: worst === Math.min(...spare) || input.cards.length === 0 ? [] : ["internal: relabelling changed the worst spare"],
  };
}
