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

/** Today's layout, improved by local search, then LPT improved by local search: the best, ties to the earliest. */
export function startingLayouts(P: Prepared): number[][] {
  const out: number[][] = [];
  if (P.current.every((c) => c !== null)) {
    const today = P.current as number[];
    out.push(today, localSearch(P, today));
  }
  const g = greedy(P);
  out.push(g, localSearch(P, g));
  return out;
}
