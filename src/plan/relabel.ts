// Fewer moves at the same worst spare. The search returns one optimal layout; many others are as
// good, and some move fewer things. Three passes, none of which lowers the worst spare:
// - cards alike (same footprint column, same spare before movable items) swap whole contents so as to
//   keep as many items where they are as possible (an assignment problem);
// - identical items trade places so that those already on a card keep its slots;
// - an item that moved goes back to today's card, or two moved items trade back, whenever every card
//   still ends at or above the worst spare.
// Every pass keeps the boot check: alike cards have the same floors, identical items the same boot
// floors, and a move back is taken only when the card it lands on still lets its seats boot last.
import { floorOf, sparesOf, type Prepared } from "./prepare.js";

function sameVector(a: number[], b: number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** The permutation maximising Σ stay[i][perm[i]]: an assignment problem, by DP over subsets. */
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

function permuteAlikeCards(P: Prepared, out: number[], group: number[]): void {
  const { C, n } = P;
  const alike: number[][] = [];
  for (let c = 0; c < C; c++) {
    const home = alike.find(
      (cl) =>
        P.col[cl[0] as number] === P.col[c] && P.base[cl[0] as number] === P.base[c] && P.fixedFloor[cl[0] as number] === P.fixedFloor[c],
    );
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
    const perm = bestPermutation(stay).map((j) => cl[j] as number);
    const map = new Map(cl.map((from, i) => [from, perm[i] as number]));
    for (let k = 0; k < n; k++) out[k] = map.get(out[k] as number) ?? (out[k] as number);
  }
}

function sortIdenticalItems(P: Prepared, out: number[], group: number[]): void {
  const { n } = P;
  for (const g of new Set(group)) {
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
}

/** Cards `c1` (and `c2`) keep their boot floors once item k moves to c1 (and item j to c2). */
function bootsWith(P: Prepared, out: number[], k: number, c1: number, s1: number, j = -1, c2 = -1, s2 = 0): boolean {
  if (!P.hasFloors) return true;
  const trial = out.slice();
  trial[k] = c1;
  if (j >= 0) trial[j] = c2;
  return s1 >= floorOf(P, trial, c1) && (j < 0 || s2 >= floorOf(P, trial, c2));
}

function moveBack(P: Prepared, out: number[], worst: number): void {
  const { n, f } = P;
  const spare = sparesOf(P, out);
  for (let changed = true; changed;) {
    changed = false;
    for (let k = 0; k < n; k++) {
      const home = P.current[k];
      const at = out[k] as number;
      if (home === null || home === undefined || home === at) continue;
      if (
        (spare[home] as number) - (f[k]![home] as number) >= worst &&
        bootsWith(P, out, k, home, (spare[home] as number) - (f[k]![home] as number))
      ) {
        spare[home] = (spare[home] as number) - (f[k]![home] as number);
        spare[at] = (spare[at] as number) + (f[k]![at] as number);
        out[k] = home;
        changed = true;
        continue;
      }
      for (let j = 0; j < n; j++) {
        if (out[j] !== home || P.current[j] !== at) continue;
        const sHome = (spare[home] as number) - (f[k]![home] as number) + (f[j]![home] as number);
        const sAt = (spare[at] as number) + (f[k]![at] as number) - (f[j]![at] as number);
        if (sHome >= worst && sAt >= worst && bootsWith(P, out, k, home, sHome, j, at, sAt)) {
          spare[home] = sHome;
          spare[at] = sAt;
          out[k] = home;
          out[j] = at;
          changed = true;
          break;
        }
      }
    }
  }
}

/** Keeps as much as possible in place without lowering the worst spare (see the header). */
export function fewerMoves(P: Prepared, assign: number[]): number[] {
  const { f } = P;
  const group = f.map((v, k) => {
    for (let j = 0; j < k; j++) if (sameVector(v, f[j] as number[]) && sameVector(P.fl[k] as number[], P.fl[j] as number[])) return j;
    return k;
  });
  const out = assign.slice();
  const worst = Math.min(...sparesOf(P, out));
  permuteAlikeCards(P, out, group);
  sortIdenticalItems(P, out, group);
  moveBack(P, out, worst);
  return out;
}
