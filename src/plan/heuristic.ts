// Starting layouts for the search: the tighter the first incumbent, the more the bounds cut.
// Today's layout comes first and a later layout replaces it only when strictly better, so a layout
// that is already optimal still yields no moves.
import { sparesOf, type Prepared } from "./prepare.js";

/** Largest first, each item to the card it leaves the most spare on (LPT). */
export function greedy(P: Prepared): number[] {
  const spare = P.base.slice();
  return P.f.map((fk) => {
    let bc = 0;
    for (let c = 1; c < P.C; c++) if ((spare[c] as number) - (fk[c] as number) > (spare[bc] as number) - (fk[bc] as number)) bc = c;
    spare[bc] = (spare[bc] as number) - (fk[bc] as number);
    return bc;
  });
}

/**
 * Descent on (worst spare, number of cards at it): move one item off a worst card, or swap one of its
 * items with one of another card's, whenever both cards end above the worst spare. Each step makes the
 * pair lexicographically better, so it stops.
 */
export function localSearch(P: Prepared, start: number[], maxSteps = 40 * P.n + 100): number[] {
  const { C, n, f } = P;
  const a = start.slice();
  const spare = sparesOf(P, a);
  for (let step = 0; step < maxSteps; step++) {
    let w = 0;
    for (let c = 1; c < C; c++) if ((spare[c] as number) < (spare[w] as number)) w = c;
    const sw = spare[w] as number;
    let bestV = sw;
    let bi = -1;
    let bj = -1;
    let bc = -1;
    for (let i = 0; i < n; i++) {
      if (a[i] !== w) continue;
      const fi = f[i] as number[];
      const nw = sw + (fi[w] as number);
      for (let c = 0; c < C; c++) {
        if (c === w) continue;
        const nc = (spare[c] as number) - (fi[c] as number);
        const v = Math.min(nw, nc);
        if (v > bestV) [bestV, bi, bj, bc] = [v, i, -1, c];
        for (let j = 0; j < n; j++) {
          if (a[j] !== c) continue;
          const fj = f[j] as number[];
          const v2 = Math.min(nw - (fj[w] as number), nc + (fj[c] as number));
          if (v2 > bestV) [bestV, bi, bj, bc] = [v2, i, j, c];
        }
      }
    }
    if (bi < 0) break;
    spare[w] = sw + (f[bi]![w] as number);
    spare[bc] = (spare[bc] as number) - (f[bi]![bc] as number);
    a[bi] = bc;
    if (bj >= 0) {
      spare[bc] = (spare[bc] as number) + (f[bj]![bc] as number);
      spare[w] = (spare[w] as number) - (f[bj]![w] as number);
      a[bj] = w;
    }
  }
  return a;
}

const PAIR_ITEMS = 14;

/**
 * Pair re-partition: the items of the worst card and of one other card are split between the two
 * anew, exactly (every subset, up to PAIR_ITEMS items), whenever the best split lifts both above the
 * worst spare. Stronger than single moves and swaps: it reaches the balanced layouts those miss.
 */
export function repartition(P: Prepared, start: number[], maxSteps = 20 * P.n + 50): number[] {
  const { C, n, f } = P;
  const a = start.slice();
  const spare = sparesOf(P, a);
  for (let step = 0; step < maxSteps; step++) {
    const order = [...Array(C).keys()].sort((x, y) => (spare[x] as number) - (spare[y] as number) || x - y);
    const w = order[0] as number;
    const sw = spare[w] as number;
    let bestV = sw;
    let bestSplit: { c: number; items: number[]; mask: number } | null = null;
    for (const c of order.slice(1)) {
      const items: number[] = [];
      for (let k = 0; k < n; k++) if (a[k] === w || a[k] === c) items.push(k);
      if (items.length > PAIR_ITEMS) continue;
      // Spares of w and c with nothing movable of theirs on them.
      let ew = sw;
      let ec = spare[c] as number;
      for (const k of items) {
        if (a[k] === w) ew += f[k]![w] as number;
        else ec += f[k]![c] as number;
      }
      const m = items.length;
      for (let mask = 0; mask < 1 << m; mask++) {
        // bit set: the item goes to w
        let sW = ew;
        let sC = ec;
        for (let i = 0; i < m; i++) {
          const k = items[i] as number;
          if (mask & (1 << i)) sW -= f[k]![w] as number;
          else sC -= f[k]![c] as number;
        }
        const v = Math.min(sW, sC);
        if (v > bestV) {
          bestV = v;
          bestSplit = { c, items, mask };
        }
      }
    }
    if (!bestSplit) break;
    const { c, items, mask } = bestSplit;
    items.forEach((k, i) => {
      const to = mask & (1 << i) ? w : c;
      const from = a[k] as number;
      if (to === from) return;
      spare[from] = (spare[from] as number) + (f[k]![from] as number);
      spare[to] = (spare[to] as number) - (f[k]![to] as number);
      a[k] = to;
    });
  }
  return a;
}

/** Local search then pair re-partition, until neither helps. */
export function improve(P: Prepared, start: number[]): number[] {
  let a = localSearch(P, start);
  for (let round = 0; round < 20; round++) {
    const before = Math.min(...sparesOf(P, a));
    a = localSearch(P, repartition(P, a));
    if (Math.min(...sparesOf(P, a)) <= before) break;
  }
  return a;
}

/** Today's layout, improved, then LPT, improved: the best wins, ties to the earliest. */
export function startingLayouts(P: Prepared): number[][] {
  const out: number[][] = [];
  if (P.current.every((c) => c !== null)) {
    const today = P.current;
    out.push(today, improve(P, today));
  }
  const g = greedy(P);
  out.push(g, improve(P, g));
  return out;
}
