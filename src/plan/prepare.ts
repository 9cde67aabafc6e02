// The planner's input turned into the arrays the search works on: cards by position, movable items
// in search order (largest first), and what the bounds and the symmetry rules need.
import type { PlanInput } from "./types.js";

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
  for (const x of input.fixed) {
    const p = pos.get(x.card);
    if (p !== undefined) base[p] = (base[p] as number) - x.bytes;
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
      return input.items[a]!.name < input.items[b]!.name ? -1 : 1;
    });
  const f = order.map((i) => input.items[i]!.footprints.slice(0, C));
  const n = f.length;
  const remMin = new Array<number>(n + 1).fill(0);
  for (let k = n - 1; k >= 0; k--) remMin[k] = (remMin[k + 1] as number) + Math.min(...(f[k] as number[]));
  const identicalPrev = f.map((v, k) => k > 0 && sameVector(v, f[k - 1] as number[]));
  const col: number[] = [];
  for (let c = 0; c < C; c++) {
    let found = c;
    for (let d = 0; d < c; d++) {
      if (f.every((v) => v[c] === v[d])) {
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
  return { C, n, f, order, base, col, columns, remMin, identicalPrev, uniform, current };
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
