// Subset sums of the items still to place, for the search's capacity bound: whatever a card takes
// from items k.. is a subset of them, so its added load is at most the largest subset sum of items
// k.. within its room. Footprints are byte counts, so a room is usually far from every subset sum
// and this bound is much tighter than the room itself (it knows that 0.1 GiB-grained seats cannot
// fill a room to the byte).
//
// One sorted table per footprint column and suffix k, built from the end (suffix n is {0}); a table
// that would outgrow `maxEntries` is not built, and nor are the (larger) ones before it: the search
// then falls back to the room, which is a weaker but still valid bound.

export interface SubsetTables {
  /** tables[j][k]: sorted distinct subset sums ≤ limit of items k.. on column j; undefined when too large. */
  tables: (Float64Array | undefined)[][];
}

const DEFAULT_MAX_ENTRIES = 1 << 16;
const TOTAL_ENTRIES = 1 << 23;

/** Sorted, distinct, ≤ limit: merge of a and a + x. */
function extend(a: Float64Array, x: number, limit: number, maxEntries: number): Float64Array | undefined {
  const out = new Float64Array(Math.min(a.length * 2, maxEntries + 1));
  let i = 0;
  let j = 0;
  let m = 0;
  let last = -Infinity;
  while (i < a.length || j < a.length) {
    const u = i < a.length ? (a[i] as number) : Infinity;
    const w = j < a.length ? (a[j] as number) + x : Infinity;
    let v: number;
    if (u <= w) {
      v = u;
      i++;
    } else {
      v = w;
      j++;
    }
    if (v > limit) break; // both streams ascend
    if (v !== last) {
      if (m >= maxEntries) return undefined;
      out[m++] = v;
      last = v;
    }
  }
  return out.subarray(0, m);
}

/** Subset-sum tables for the columns `columns` (card positions) of footprints `f` (search order). */
export function buildSubsetTables(f: number[][], columns: number[], limit: number, maxEntries = DEFAULT_MAX_ENTRIES): SubsetTables {
  const n = f.length;
  let budget = TOTAL_ENTRIES;
  const tables = columns.map((c) => {
    const t = new Array<Float64Array | undefined>(n + 1).fill(undefined);
    let cur: Float64Array | undefined = Float64Array.of(0);
    t[n] = cur;
    for (let k = n - 1; k >= 0 && cur; k--) {
      cur = extend(cur, f[k]![c] as number, limit, Math.min(maxEntries, budget));
      if (cur) {
        budget -= cur.length;
        t[k] = cur;
      }
    }
    return t;
  });
  return { tables };
}

/** The largest entry of a sorted table at most x (−Infinity when none). */
export function largestAtMost(t: Float64Array, x: number): number {
  let lo = 0;
  let hi = t.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((t[mid] as number) <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo === 0 ? -Infinity : (t[lo - 1] as number);
}
