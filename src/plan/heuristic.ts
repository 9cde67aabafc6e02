// Starting layouts for the search: the tighter the first incumbent, the more the bounds cut.
// Today's layout comes first and a later layout replaces it only when strictly better, so a layout
// that is already optimal still yields no moves.
// Every step keeps the boot check: a move is taken only when the cards it touches still let each of
// their vLLM seats boot last.
import { sparesOf, type Prepared } from "./prepare.js";

/**
 * Whether cards `cards` keep their boot floors once the items in `moved` (item → card) move: the
 * floor is recomputed from the occupants (cheap enough: only for moves that would improve).
 */
function bootsAfter(P: Prepared, a: number[], spare: number[], moved: Map<number, number>, cards: number[]): boolean {
  if (!P.hasFloors) return true;
  for (const c of cards) {
    let floor = P.fixedFloor[c] as number;
    for (let k = 0; k < P.n; k++) if ((moved.get(k) ?? a[k]) === c && (P.fl[k]![c] as number) > floor) floor = P.fl[k]![c] as number;
    if ((spare[c] as number) < floor) return false;
  }
  return true;
}

/** Largest first, each item to the card it leaves the most spare on (LPT), among the cards it can boot on. */
export function greedy(P: Prepared): number[] {
  const spare = P.base.slice();
  const floor = P.fixedFloor.slice();
  return P.f.map((fk, k) => {
    let bc = -1;
    let anyC = 0;
    for (let c = 0; c < P.C; c++) {
      const after = (spare[c] as number) - (fk[c] as number);
      if (after > (spare[anyC] as number) - (fk[anyC] as number)) anyC = c;
      if (after < Math.max(floor[c] as number, P.fl[k]![c] as number)) continue;
      if (bc < 0 || after > (spare[bc] as number) - (fk[bc] as number)) bc = c;
    }
    if (bc < 0) bc = anyC; // no card lets it boot: the layout fails the check, and the search starts without it
    spare[bc] = (spare[bc] as number) - (fk[bc] as number);
    floor[bc] = Math.max(floor[bc] as number, P.fl[k]![bc] as number);
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
        if (v > bestV && bootsAfter(P, a, withSpares(spare, w, nw, c, nc), new Map([[i, c]]), [w, c])) [bestV, bi, bj, bc] = [v, i, -1, c];
        for (let j = 0; j < n; j++) {
          if (a[j] !== c) continue;
          const fj = f[j] as number[];
          const sw2 = nw - (fj[w] as number);
          const sc2 = nc + (fj[c] as number);
          const v2 = Math.min(sw2, sc2);
          if (
            v2 > bestV &&
            bootsAfter(
              P,
              a,
              withSpares(spare, w, sw2, c, sc2),
              new Map([
                [i, c],
                [j, w],
              ]),
              [w, c],
            )
          )
            [bestV, bi, bj, bc] = [v2, i, j, c];
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
function repartition(P: Prepared, start: number[], maxSteps = 20 * P.n + 50): number[] {
  const { C, n, f } = P;
  const a = start.slice();
  const spare = sparesOf(P, a);
  for (let step = 0; step < maxSteps; step++) {
    const order = [...Array(C).keys()].sort((x, y) => (spare[x] as number) - (spare[y] as number) || x - y);
    const w = order[0] as number;
    const sw = spare[w] as number;
    let bestV = sw;
    let bestSplit: { c: number; items: number[]; mask: number; toW?: boolean[] } | null = null;
    for (const c of order.slice(1)) {
      const items: number[] = [];
      for (let k = 0; k < n; k++) if (a[k] === w || a[k] === c) items.push(k);
      const same = items.every((k) => f[k]![w] === f[k]![c]);
      if (items.length > PAIR_ITEMS && !same) continue;
      // Spares of w and c with nothing movable of theirs on them.
      let ew = sw;
      let ec = spare[c] as number;
      for (const k of items) {
        if (a[k] === w) ew += f[k]![w] as number;
        else ec += f[k]![c] as number;
      }
      if (same) {
        // Meet in the middle on the one subset sum that balances the pair (exact, and far cheaper than
        // every subset).
        const split = balancedSplit(
          items.map((k) => f[k]![w] as number),
          ew,
          ec,
        );
        if (split && split.value > bestV) {
          const moved = new Map(items.map((k, i) => [k, split.toW[i] ? w : c]));
          const sW = ew - items.reduce((t, k, i) => t + (split.toW[i] ? (f[k]![w] as number) : 0), 0);
          const sC = ec - items.reduce((t, k, i) => t + (split.toW[i] ? 0 : (f[k]![c] as number)), 0);
          if (bootsAfter(P, a, withSpares(spare, w, sW, c, sC), moved, [w, c])) {
            bestV = split.value;
            bestSplit = { c, items, mask: -1, toW: split.toW };
          }
        }
        continue;
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
        if (
          v > bestV &&
          bootsAfter(P, a, withSpares(spare, w, sW, c, sC), new Map(items.map((k, i) => [k, mask & (1 << i) ? w : c])), [w, c])
        ) {
          bestV = v;
          bestSplit = { c, items, mask };
        }
      }
    }
    if (!bestSplit) break;
    const { c, items, mask, toW } = bestSplit;
    items.forEach((k, i) => {
      const to = (toW ? toW[i] : mask & (1 << i)) ? w : c;
      const from = a[k] as number;
      if (to === from) return;
      spare[from] = (spare[from] as number) + (f[k]![from] as number);
      spare[to] = (spare[to] as number) - (f[k]![to] as number);
      a[k] = to;
    });
  }
  return a;
}

const HALF = 12;

/**
 * Items of sizes `sizes` split between cards w (spare `ew` without them) and c (`ec`) so that the
 * smaller spare is as large as possible: the load x sent to w is best nearest (ew − ec + Σ)/2, found by
 * meeting in the middle (every subset sum of each half, sorted; up to 2 × 2^HALF). Null when too many.
 */
function balancedSplit(sizes: number[], ew: number, ec: number): { value: number; toW: boolean[] } | null {
  const m = sizes.length;
  if (m > 2 * HALF) return null;
  const h = m >> 1;
  const sums = (from: number, to: number) => {
    const out: { s: number; mask: number }[] = [{ s: 0, mask: 0 }];
    for (let i = from; i < to; i++) {
      const len = out.length;
      for (let j = 0; j < len; j++) out.push({ s: out[j]!.s + (sizes[i] as number), mask: out[j]!.mask | (1 << (i - from)) });
    }
    return out;
  };
  const A = sums(0, h);
  const B = sums(h, m).sort((x, y) => x.s - y.s);
  const total = sizes.reduce((t, x) => t + x, 0);
  const ideal = (ew - ec + total) / 2;
  let best = { value: -Infinity, a: 0, b: 0 };
  for (const a of A) {
    const want = ideal - a.s;
    let lo = 0;
    let hi = B.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((B[mid] as { s: number }).s < want) lo = mid + 1;
      else hi = mid;
    }
    for (const j of [lo - 1, lo]) {
      const b = B[j];
      if (!b) continue;
      const x = a.s + b.s;
      const v = Math.min(ew - x, ec - (total - x));
      if (v > best.value) best = { value: v, a: a.mask, b: b.mask };
    }
  }
  const toW = sizes.map((_, i) => (i < h ? (best.a >> i) & 1 : (best.b >> (i - h)) & 1) === 1);
  return { value: best.value, toW };
}

function withSpares(spare: number[], w: number, sw: number, c: number, sc: number): number[] {
  const out = spare.slice();
  out[w] = sw;
  out[c] = sc;
  return out;
}

/** Local search then pair re-partition, until neither helps. */
function improve(P: Prepared, start: number[]): number[] {
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
