// A tree's listing as sorted arrays, so a commit's listing is its first parent's plus the commit's
// raw diff: a merge of a few changes into 10,000 entries (array slices) instead of an `ls-tree` process.
import type { Entries } from "./snapshots.js";
import { modeKind, type RawEntry } from "./raw.js";

export interface ListedEntry {
  path: string;
  mode: string;
  oid: string;
}

export interface Listing {
  /** Every entry (all modes), sorted in git's order (UTF-8 bytes of the full path). */
  entries: ListedEntry[];
  /** Regular files only, same order: what Snapshot.list() returns (a copy of it: this one is shared). */
  files: readonly string[];
}

export const EMPTY_LISTING: Listing = { entries: [], files: [] };

/** Compares like git (UTF-8 byte order, which is code-point order), not like JS (UTF-16 units). */
export function comparePaths(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates (astral code points) sort after U+E000..U+FFFF in UTF-8.
    if (x >= 0xd800) x += x >= 0xe000 ? -0x800 : 0x2000;
    if (y >= 0xd800) y += y >= 0xe000 ? -0x800 : 0x2000;
    return x - y;
  }
  return a.length - b.length;
}

const isRegular = (mode: string): boolean => mode.startsWith("100");

export function listingFromEntries(map: Entries): Listing {
  const entries = [...map].map(([path, e]) => ({ path, mode: e.mode, oid: e.oid }));
  entries.sort((a, b) => comparePaths(a.path, b.path));
  return { entries, files: entries.filter((e) => isRegular(e.mode)).map((e) => e.path) };
}

/** The entry at a path, by binary search; undefined when absent. */
export function lookup(listing: Listing, path: string): ListedEntry | undefined {
  const { entries } = listing;
  const i = lowerBound(entries, path, (e) => e.path, 0);
  const e = entries[i];
  return e && e.path === path ? e : undefined;
}

/**
 * The listing after a diff: raw entries are relative to the listing's folder already (those outside
 * it dropped by the caller). Deletions (and rename sources) first, then the new sides, as git applies them.
 */
export function applyRaw(prev: Listing, raw: RawEntry[]): Listing {
  if (raw.length === 0) return prev;
  const changes = new Map<string, ListedEntry | null>();
  for (const e of raw) if (modeKind(e.oldMode) !== "absent" && e.status !== "C") changes.set(e.oldPath, null);
  for (const e of raw) if (modeKind(e.newMode) !== "absent") changes.set(e.path, { path: e.path, mode: e.newMode, oid: e.newOid });
  const sorted = [...changes].sort(([a], [b]) => comparePaths(a, b));
  const entries = merge(
    prev.entries,
    sorted,
    (e) => e.path,
    (_k, v) => v,
  );
  const fileChanges: [string, string | null][] = sorted.map(([k, v]) => [k, v && isRegular(v.mode) ? k : null]);
  const files = merge(
    prev.files,
    fileChanges,
    (p) => p,
    (_k, v) => v,
  );
  return { entries, files };
}

/** Copies the untouched runs of `prev` as slices and splices each change in at its place. */
function merge<T, V>(prev: readonly T[], changes: [string, V | null][], key: (t: T) => string, make: (k: string, v: V) => T): T[] {
  const parts: T[][] = [];
  const inserted: T[] = [];
  let i = 0;
  for (const [k, v] of changes) {
    const j = lowerBound(prev, k, key, i);
    if (j > i) {
      if (inserted.length > 0) parts.push(inserted.splice(0));
      parts.push(prev.slice(i, j));
    }
    i = j;
    const at = prev[i];
    if (at !== undefined && key(at) === k) i++;
    if (v !== null) inserted.push(make(k, v));
  }
  if (inserted.length > 0) parts.push(inserted);
  if (i < prev.length) parts.push(prev.slice(i));
  if (parts.length < 4096) return ([] as T[]).concat(...parts);
  const out: T[] = [];
  for (const part of parts) for (const x of part) out.push(x);
  return out;
}

function lowerBound<T>(xs: readonly T[], k: string, key: (t: T) => string, from: number): number {
  let lo = from;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (comparePaths(key(xs[mid] as T), k) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
