// The planner's input turned into the arrays the search works on: cards by position, movable items
// in search order (largest first), and what the bounds and the symmetry rules need.
import type { PlanInput } from "./problem.js";

export interface Prepared {
  C: number;
  n: number;
  /** f[k][c]: footprint of the k-th item in search order on the card at position c. */
  f: number[][];
  /** order[k]: the item's index in `PlanInput.items`. */
  order: number[];
  /** Spare of each card before any movable item: total − reserve − fixed loads. */
  base: number[];
  /**
   * col[c]: the lowest card position whose footprint column equals c's. Two cards of one column with
   * the same spare at a node are interchangeable for the rest of the search, whatever their totals.
   */
  col: number[];
  /** The distinct columns (their lowest card position). */
  columns: number[];
  /**
   * fl[k][c]: the spare card c must keep once item k is on it, for k to boot last (kv/boot-check);
   * −Infinity for a tenant. A card's floor is the largest of its occupants'; it only rises as items land.
   */
  fl: number[][];
  /** Each card's floor from its fixed seats (−Infinity when none). */
  fixedFloor: number[];
  /** Some item or fixed seat has a boot floor: the search checks them. */
  hasFloors: boolean;
  /** remMin[k]: Σ over items k.. of the smallest footprint: the least load still to be placed. */
  remMin: number[];
  /** Item k has the same footprints as item k − 1 (a run of identical items). */
  identicalPrev: boolean[];
  /** Every item weighs the same on every card (the usual case). */
  uniform: boolean;
  /** Card position of each item today (search order); null when it sits on no listed card. */
  current: (number | null)[];
}

function sameVector(a: number[], b: number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

export function prepare(input: PlanInput): Prepared {
  const C = input.cards.length;
  const pos = new Map(input.cards.map((c, i) => [c.index, i]));
  const base = input.cards.map((c) => c.total_bytes - c.reserve_bytes);
  const fixedFloor = input.cards.map(() => -Infinity);
  for (const x of input.fixed) {
    const p = pos.get(x.card);
    if (p === undefined) continue;
    base[p] = (base[p] as number) - x.bytes;
    if (x.boot_floor !== undefined) fixedFloor[p] = Math.max(fixedFloor[p] as number, x.boot_floor);
  }
  const maxOf = (v: number[]) => Math.max(...v);
  // Largest first: big items decide feasibility, so failures show near the root.
  const order = input.items
    .map((_, i) => i)
    .sort((a, b) => {
      const fa = input.items[a]!.footprints;
      const fb = input.items[b]!.footprints;
      const d = maxOf(fb) - maxOf(fa);
      if (d !== 0) return d;
      for (let c = 0; c < C; c++) if (fa[c] !== fb[c]) return (fb[c] as number) - (fa[c] as number);
      const la = floorsOf(input.items[a]!.boot_floors, C);
      const lb = floorsOf(input.items[b]!.boot_floors, C);
      for (let c = 0; c < C; c++) if (la[c] !== lb[c]) return (lb[c] as number) > (la[c] as number) ? 1 : -1;
      return input.items[a]!.name < input.items[b]!.name ? -1 : 1;
    });
  const f = order.map((i) => input.items[i]!.footprints.slice(0, C));
  const fl = order.map((i) => floorsOf(input.items[i]!.boot_floors, C));
  const n = f.length;
  const hasFloors = fl.some((v) => v.some((x) => x !== -Infinity)) || fixedFloor.some((x) => x !== -Infinity);
  const remMin = new Array<number>(n + 1).fill(0);
  for (let k = n - 1; k >= 0; k--) remMin[k] = (remMin[k + 1] as number) + Math.min(...(f[k] as number[]));
  const identicalPrev = f.map(
    (v, k) => k > 0 && sameVector(v, f[k - 1] as number[]) && sameVector(fl[k] as number[], fl[k - 1] as number[]),
  );
  const col: number[] = [];
  for (let c = 0; c < C; c++) {
    let found = c;
    for (let d = 0; d < c; d++) {
      if (f.every((v) => v[c] === v[d]) && fl.every((v) => v[c] === v[d])) {
        found = col[d] as number;
        break;
      }
    }
    col.push(found);
  }
  const columns = [...new Set(col)];
  const current = order.map((i) => {
    const cur = input.items[i]!.current;
    return cur === null ? null : (pos.get(cur) ?? null);
  });
  const uniform = f.every((v) => v.every((x) => x === v[0]));
  return { C, n, f, fl, fixedFloor, hasFloors, order, base, col, columns, remMin, identicalPrev, uniform, current };
}

function floorsOf(v: number[] | undefined, C: number): number[] {
  return Array.from({ length: C }, (_, c) => v?.[c] ?? -Infinity);
}

/** The floor of card c under an assignment: the largest boot floor among its occupants. */
export function floorOf(P: Prepared, assign: ArrayLike<number>, c: number): number {
  let m = P.fixedFloor[c] as number;
  for (let k = 0; k < P.n; k++) if (assign[k] === c && (P.fl[k]![c] as number) > m) m = P.fl[k]![c] as number;
  return m;
}

/** Every card keeps the spare its vLLM seats need to boot last. */
export function bootsOk(P: Prepared, assign: ArrayLike<number>, spare = sparesOf(P, assign)): boolean {
  if (!P.hasFloors) return true;
  for (let c = 0; c < P.C; c++) if ((spare[c] as number) < floorOf(P, assign, c)) return false;
  return true;
}

/** The objective with the boot check as a constraint: the worst spare, or −Infinity when a seat cannot boot. */
export function scoreOf(P: Prepared, assign: ArrayLike<number>): number {
  if (P.C === 0) return 0;
  const spare = sparesOf(P, assign);
  return bootsOk(P, assign, spare) ? Math.min(...spare) : -Infinity;
}

/** Spare of every card under an assignment (search order, card positions). */
export function sparesOf(P: Prepared, assign: ArrayLike<number>): number[] {
  const spare = P.base.slice();
  for (let k = 0; k < P.n; k++) {
    const c = assign[k] as number;
    spare[c] = (spare[c] as number) - (P.f[k]![c] as number);
  }
  return spare;
}

export function worstOf(P: Prepared, assign: ArrayLike<number>): number {
  return P.C === 0 ? 0 : Math.min(...sparesOf(P, assign));
}
