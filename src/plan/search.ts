// Depth-first branch and bound over the items, largest first, each to a card. A node is cut unless
// every card can still end with a spare above the best layout found ("the incumbent"):
// - a card's spare only shrinks, so one already at or below the incumbent ends the node;
// - capacity: card c may take added load below room_c = spare_c − best, and what it takes is a subset
//   of the remaining items, so at most cap_c = the largest subset sum of them below room_c (see
//   subsets.ts); the remaining items weigh at least remMin, which must fit in Σ cap_c;
// - the same per size (items that weigh the same on every card): the remaining items of size ≥ s fit
//   only on cards with room above s, and must fit in those cards' caps.
// Symmetry: cards of one footprint column with the same spare at a node are interchangeable for the
// rest of the search, so only the lowest-positioned of them is tried; a run of identical items takes
// non-decreasing card positions (the two rules agree: both pick the lowest position, so swapping two
// interchangeable cards' futures keeps a run sorted). Ties keep the incumbent; an item tries the card
// it is on today first, so improvements stay close to today's layout.
import type { Prepared } from "./prepare.js";
import { buildSubsetTables, largestBelow } from "./subsets.js";

export interface SearchLimits {
  /** Stop after this many nodes (the result is then not proven optimal). */
  maxNodes: number;
  /** Stop at this `performance.now()` time. */
  deadline: number;
}

export interface SearchOutcome {
  worst: number;
  assign: number[];
  nodes: number;
  /** The search ran to the end: `worst` is optimal. */
  complete: boolean;
}

export function search(P: Prepared, start: { worst: number; assign: number[] }, limits: SearchLimits): SearchOutcome {
  const { C, n, f } = P;
  let best = start.worst;
  let bestAssign = start.assign.slice();
  if (C === 0 || n === 0) return { worst: best, assign: bestAssign, nodes: 0, complete: true };
  // No room ever exceeds base − (the first incumbent): sums past that never matter.
  const limit = Math.max(...P.base) - best;
  const { tables } = buildSubsetTables(f, P.columns, limit);
  const colIdx = P.col.map((c) => P.columns.indexOf(c));
  const spare = Float64Array.from(P.base);
  const assign = new Int32Array(n);
  const room = new Float64Array(C);
  const cap = new Float64Array(C);
  const strict = new Uint8Array(C);
  const byRoom: number[] = [...Array(C).keys()];
  // Distinct sizes of a uniform instance: sizeEnd[j] = the first item after j's run of equal size.
  const sizeEnd = new Int32Array(n);
  if (P.uniform) for (let j = n - 1; j >= 0; j--) sizeEnd[j] = j + 1 < n && f[j + 1]![0] === f[j]![0] ? (sizeEnd[j + 1] as number) : j + 1;
  const candBuf: Int32Array[] = Array.from({ length: n }, () => new Int32Array(C));
  const keyBuf: Float64Array[] = Array.from({ length: n }, () => new Float64Array(C));
  let nodes = 0;
  let aborted = false;

  const bounded = (k: number): boolean => {
    let total = 0;
    let anyStrict = false;
    for (let c = 0; c < C; c++) {
      const r = (spare[c] as number) - best;
      if (r <= 0) return false;
      room[c] = r;
      const t = tables[colIdx[c] as number]![k];
      if (t) {
        cap[c] = largestBelow(t, r);
        strict[c] = 0;
      } else {
        cap[c] = r;
        strict[c] = 1;
        anyStrict = true;
      }
      total += cap[c] as number;
    }
    const need = P.remMin[k] as number;
    if (need > total || (anyStrict && need >= total)) return false;
    if (P.uniform) {
      byRoom.sort((a, b) => (room[b] as number) - (room[a] as number));
      let acc = 0;
      let open = 0;
      let openCap = 0;
      let openStrict = false;
      for (let j = k; j < n; ) {
        const sz = f[j]![0] as number;
        const end = sizeEnd[j] as number;
        acc += sz * (end - j);
        j = end;
        while (open < C && (room[byRoom[open] as number] as number) > sz) {
          const c = byRoom[open++] as number;
          openCap += cap[c] as number;
          if (strict[c]) openStrict = true;
        }
        if (acc > openCap || (openStrict && acc >= openCap)) return false;
      }
    }
    return true;
  };

  const dfs = (k: number): void => {
    nodes++;
    if ((nodes & 1023) === 0 && (nodes >= limits.maxNodes || performance.now() >= limits.deadline)) aborted = true;
    if (aborted) return;
    if (k === n) {
      let mn = Infinity;
      for (let c = 0; c < C; c++) if ((spare[c] as number) < mn) mn = spare[c] as number;
      if (mn > best) {
        best = mn;
        bestAssign = Array.from(assign);
      }
      return;
    }
    if (!bounded(k)) return;
    const fk = f[k] as number[];
    const from = P.identicalPrev[k] ? (assign[k - 1] as number) : 0;
    const cands = candBuf[k] as Int32Array;
    const keys = keyBuf[k] as Float64Array;
    const cur = P.current[k];
    let m = 0;
    for (let c = from; c < C; c++) {
      const after = (spare[c] as number) - (fk[c] as number);
      if (after <= best) continue;
      let twin = false;
      for (let d = from; d < c; d++) if (P.col[d] === P.col[c] && spare[d] === spare[c]) twin = true;
      if (twin) continue;
      // Today's card first, then the most spare left (insertion into a short list).
      const key = c === cur ? Infinity : after;
      let i = m++;
      while (i > 0 && (keys[i - 1] as number) < key) {
        keys[i] = keys[i - 1] as number;
        cands[i] = cands[i - 1] as number;
        i--;
      }
      keys[i] = key;
      cands[i] = c;
    }
    for (let i = 0; i < m; i++) {
      const c = cands[i] as number;
      const s = spare[c] as number;
      if (s - (fk[c] as number) <= best) continue; // the incumbent may have risen meanwhile
      spare[c] = s - (fk[c] as number);
      assign[k] = c;
      dfs(k + 1);
      spare[c] = s;
      if (aborted) return;
    }
  };
  dfs(0);
  return { worst: best, assign: bestAssign, nodes, complete: !aborted };
}

/**
 * An upper bound on the worst spare at the root (reported when a search stops on its budget): the
 * smallest W for which the capacity test already fails with the incumbent at W.
 */
export function rootBound(P: Prepared, lo: number): number {
  const { C } = P;
  if (C === 0) return 0;
  const integral = P.base.every(Number.isInteger) && P.f.every((v) => v.every(Number.isInteger));
  const limit = Math.max(...P.base) - lo;
  const { tables } = buildSubsetTables(P.f, P.columns, limit);
  const colIdx = P.col.map((c) => P.columns.indexOf(c));
  const possible = (w: number): boolean => {
    let total = 0;
    let anyStrict = false;
    for (let c = 0; c < C; c++) {
      const r = (P.base[c] as number) - w;
      if (r <= 0) return false;
      const t = tables[colIdx[c] as number]![0];
      if (t) total += largestBelow(t, r);
      else {
        total += r;
        anyStrict = true;
      }
    }
    const need = P.remMin[0] as number;
    return !(need > total || (anyStrict && need >= total));
  };
  let hi = Math.min(...P.base);
  if (!possible(lo)) return lo;
  let l = lo;
  for (let i = 0; i < 200 && hi - l > (integral ? 1 : 0); i++) {
    const mid = integral ? Math.floor((l + hi) / 2) : (l + hi) / 2;
    if (mid === l || mid === hi) break;
    if (possible(mid)) l = mid;
    else hi = mid;
  }
  return hi;
}
