// Depth-first branch and bound over the items, largest first, each to a card. A node is cut unless
// every card can still end with a spare at least `target` = the best layout found ("the incumbent")
// plus the resolution, while keeping its boot floor (kv/boot-check: the spare each of its vLLM seats
// needs to boot last; a card's floor only rises as seats land, its spare only falls):
// - room_c = min(spare_c − target, spare_c − floor_c): the load card c may still take; below 0 ends
//   the node;
// - capacity: what card c takes is a subset of the remaining items, so at most cap_c = the largest
//   subset sum of them within room_c (see subsets.ts); the remaining items weigh at least remMin,
//   which must fit in Σ cap_c;
// - per size (items that weigh the same on every card): the remaining items of size ≥ s fit only on
//   cards with room ≥ s, and must fit in those cards' caps;
// - per count (bin packing's cardinality bound, the one that sees hosts of nearly equal seats): of the
//   t largest remaining items, card c holds at most as many as the smallest of them that fit its
//   room, and those counts must add up to t (t = C + 1, 2C + 1, … and all of them); and the cards
//   forced to hold the most of them must have room for the smallest that many.
// Symmetry: cards of one footprint column with the same spare at a node are interchangeable for the
// rest of the search, so only the lowest-positioned of them is tried; a run of identical items takes
// non-decreasing card positions (the two rules agree: both pick the lowest position, so swapping two
// interchangeable cards' futures keeps a run sorted). Ties keep the incumbent; an item tries the card
// it is on today first, so improvements stay close to today's layout.
import type { Prepared } from "./prepare.js";
import { buildSubsetTables, largestAtMost } from "./subsets.js";

export interface SearchLimits {
  /** Stop after this many nodes (the result is then not proven optimal). */
  maxNodes: number;
  /** Stop at this `performance.now()` time. */
  deadline: number;
  /** Layouts whose worst spares differ by less than this count as equal (1 = exact to the byte). */
  resolution: number;
}

export interface SearchOutcome {
  /** −Infinity when no layout lets every seat boot. */
  worst: number;
  assign: number[];
  nodes: number;
  /** The search ran to the end: no layout reaches `worst` + resolution. */
  complete: boolean;
}

/** The bound's working state for one search: buffers reused at every node. */
interface Bounder {
  /** Whether cards at spares `spare` and floors `floor` may still place items k.. with every card ≥ target. */
  (k: number, spare: ArrayLike<number>, floor: ArrayLike<number>, target: number): boolean;
}

function makeBounder(P: Prepared, limit: number): Bounder {
  const { C, n, f } = P;
  const { tables } = buildSubsetTables(f, P.columns, limit);
  const colIdx = P.col.map((c) => P.columns.indexOf(c));
  const room = new Float64Array(C);
  const cap = new Float64Array(C);
  const cnt = new Int32Array(C);
  const byRoom: number[] = [...Array(C).keys()];
  // Distinct sizes of a uniform instance: sizeEnd[j] = the first item after j's run of equal size.
  const sizeEnd = new Int32Array(n);
  if (P.uniform) for (let j = n - 1; j >= 0; j--) sizeEnd[j] = j + 1 < n && f[j + 1]![0] === f[j]![0] ? (sizeEnd[j + 1] as number) : j + 1;
  // suffix[i] = Σ sizes of items i.. (uniform instances: items in descending size).
  const suffix = new Float64Array(n + 1);
  if (P.uniform) for (let i = n - 1; i >= 0; i--) suffix[i] = (suffix[i + 1] as number) + (f[i]![0] as number);
  /** Of items k..end−1 (descending), how many of the smallest fit in room r. */
  const countFit = (end: number, k: number, r: number): number => {
    let lo = 0;
    let hi = end - k;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((suffix[end - mid] as number) - (suffix[end] as number) <= r) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  return (k, spare, floor, target) => {
    let total = 0;
    for (let c = 0; c < C; c++) {
      const s = spare[c] as number;
      const r = Math.min(s - target, s - (floor[c] as number));
      if (r < 0) return false;
      room[c] = r;
      const t = tables[colIdx[c] as number]![k];
      cap[c] = t ? largestAtMost(t, r) : r;
      total += cap[c] as number;
    }
    if ((P.remMin[k] as number) > total) return false;
    if (!P.uniform) return true;
    byRoom.sort((a, b) => (room[b] as number) - (room[a] as number));
    let acc = 0;
    let open = 0;
    let openCap = 0;
    for (let j = k; j < n;) {
      const sz = f[j]![0] as number;
      const end = sizeEnd[j] as number;
      acc += sz * (end - j);
      j = end;
      while (open < C && (room[byRoom[open] as number] as number) >= sz) openCap += cap[byRoom[open++] as number] as number;
      if (acc > openCap) return false;
    }
    const rem = n - k;
    for (let t = C + 1; ; t += C) {
      const tt = Math.min(t, rem);
      const end = k + tt;
      let fit = 0;
      let most = 0;
      for (let c = 0; c < C; c++) {
        const x = countFit(end, k, room[c] as number);
        cnt[c] = x;
        fit += x;
        if (x > most) most = x;
      }
      if (fit < tt) return false;
      // Crowded cards: at most `most` items a card, so at least m = tt − Σ min(cnt, most − 1) cards
      // hold `most` of them; those m·most items weigh at least the m·most smallest, which must fit
      // in the m largest rooms of the cards that can hold that many.
      let below = 0;
      for (let c = 0; c < C; c++) below += Math.min(cnt[c] as number, most - 1);
      const m = tt - below;
      if (m > 0 && most > 0) {
        if (m * most > tt) return false; // m cards of `most` items each: more items than there are
        const need = (suffix[end - m * most] as number) - (suffix[end] as number);
        let have = 0;
        let taken = 0;
        for (let i = 0; i < C && taken < m; i++) {
          const c = byRoom[i] as number;
          if ((cnt[c] as number) < most) continue;
          have += room[c] as number;
          taken++;
        }
        if (need > have) return false;
      }
      if (tt === rem) break;
    }
    return true;
  };
}

export function search(P: Prepared, start: { worst: number; assign: number[] }, limits: SearchLimits): SearchOutcome {
  const { C, n, f } = P;
  const res = limits.resolution;
  let best = start.worst;
  let bestAssign = start.assign.slice();
  if (C === 0 || n === 0) return { worst: best, assign: bestAssign, nodes: 0, complete: true };
  // No room ever exceeds base − (the first incumbent): sums past that never matter.
  const bounded = makeBounder(P, Math.max(...P.base) - best);
  const spare = Float64Array.from(P.base);
  const floor = Float64Array.from(P.fixedFloor);
  const assign = new Int32Array(n);
  const candBuf: Int32Array[] = Array.from({ length: n }, () => new Int32Array(C));
  const keyBuf: Float64Array[] = Array.from({ length: n }, () => new Float64Array(C));
  let nodes = 0;
  let aborted = false;

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
    if (!bounded(k, spare, floor, best + res)) return;
    const fk = f[k] as number[];
    const lk = P.fl[k] as number[];
    const from = P.identicalPrev[k] ? (assign[k - 1] as number) : 0;
    const cands = candBuf[k] as Int32Array;
    const keys = keyBuf[k] as Float64Array;
    const cur = P.current[k];
    let m = 0;
    for (let c = from; c < C; c++) {
      const after = (spare[c] as number) - (fk[c] as number);
      if (after < best + res || after < (floor[c] as number) || after < (lk[c] as number)) continue;
      let twin = false;
      for (let d = from; d < c; d++) if (P.col[d] === P.col[c] && spare[d] === spare[c] && floor[d] === floor[c]) twin = true;
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
      if (s - (fk[c] as number) < best + res) continue; // the incumbent may have risen meanwhile
      const fl0 = floor[c] as number;
      spare[c] = s - (fk[c] as number);
      if ((lk[c] as number) > fl0) floor[c] = lk[c] as number;
      assign[k] = c;
      dfs(k + 1);
      spare[c] = s;
      floor[c] = fl0;
      if (aborted) return;
    }
  };
  dfs(0);
  return { worst: best, assign: bestAssign, nodes, complete: !aborted };
}

/**
 * An upper bound on the worst spare at the root (reported when a search stops on its budget): the
 * largest target the bound cannot rule out, by bisection (integral byte counts: to the byte).
 */
export function rootBound(P: Prepared, lo: number): number {
  const { C } = P;
  if (C === 0) return 0;
  const bounded = makeBounder(P, Math.max(...P.base) - lo);
  const possible = (w: number) => bounded(0, P.base, P.fixedFloor, w);
  if (!possible(lo)) return lo;
  let l = lo;
  let hi = Math.min(...P.base) + 1; // no card ends above its base: this target is impossible
  while (hi - l > 1) {
    const mid = Math.floor((l + hi) / 2);
    if (possible(mid)) l = mid;
    else hi = mid;
  }
  return l;
}
