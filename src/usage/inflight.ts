// The in-flight peak (docs/usage-observe.md): the largest sum of prompt + completion tokens over the
// requests in flight at one instant, a request being in flight on [startTime, endTime) — a request that
// ends at the instant another starts does not overlap it. Two sums are swept at once: every request,
// and every request but the runaways (what the output cap leaves).
//
// Streaming, exact, in bounded memory. A sweep over start instants needs the requests in start order,
// and exports are only roughly in it (LiteLLM writes a spend row when the request ends, in batches, so
// a long reply's row lands hours after its start). Rows wait in one-second buckets (kept sorted by
// start; rows arrive nearly in order, so an insert is almost always an append) until the latest start
// seen is `windowMs` past them (default 6 h: longer than a 260k-token runaway at 40 tokens/s, 1.8 h);
// then each bucket is swept in order. Memory: the rows of one window (29 bytes each, in typed-array
// pools reused row after row: no garbage per row) plus the requests in flight (17 bytes each, in a heap
// by end). A row that starts before one already swept means the
// export is not in that order (a newest-first export, say): the tracker says so (`ordered` false)
// instead of guessing, and the caller recomputes that service exactly with an external sort
// (./spill.ts).
import { EndHeap } from "./heap.js";

export const REORDER_WINDOW_MS = 6 * 3600 * 1000;
const SLOT_MS = 1000;
const NONE = -1;

export interface Peaks {
  all: number;
  withoutRunaways: number;
}

export class InflightPeak {
  /** Per bucket, the first and last of its waiting rows, a list in start order through `link`. */
  private readonly head: Int32Array;
  private readonly tail: Int32Array;
  private readonly ring: number;
  /** The waiting rows: a pool of records, free ones chained from `free`. */
  private starts = new Float64Array(1024);
  private ends = new Float64Array(1024);
  private tokens = new Float64Array(1024);
  private flags = new Uint8Array(1024);
  private link = new Int32Array(1024);
  private free = NONE;
  private used = 0;
  /** Bucket numbers count seconds from here (the first row's, less a window): small integers, which V8
   *  keeps unboxed, where seconds since 1970 (1.7e9) would be doubles and `%` on them an fmod. */
  private base = 0;
  private started = false;
  /** The bucket (seconds since `base`) of the oldest rows not swept yet. */
  private next = 0;
  private latest = -Infinity;
  /** Start of the last swept request: no later row may start before it. */
  private frontier = -Infinity;
  private active: EndHeap | null = new EndHeap();
  private allNow = 0;
  private sansNow = 0;
  private allBest = 0;
  private sansBest = 0;
  private waiting = 0;
  private held = 0;
  private broken = false;

  constructor(private readonly windowMs = REORDER_WINDOW_MS) {
    this.ring = Math.ceil(windowMs / SLOT_MS) + 2;
    this.head = new Int32Array(this.ring).fill(NONE);
    this.tail = new Int32Array(this.ring).fill(NONE);
  }

  /** A copy of the tracker as it stands (the rows so far, swept and waiting), to go on separately. */
  clone(): InflightPeak {
    const c = Object.create(InflightPeak.prototype) as Record<string, unknown>;
    for (const [k, v] of Object.entries(this))
      c[k] = ArrayBuffer.isView(v) ? (v as Float64Array).slice() : v instanceof EndHeap ? v.clone() : v;
    return c as unknown as InflightPeak;
  }

  /** False once a row arrived out of order beyond the window: finish() then has no answer. */
  get ordered(): boolean {
    return !this.broken;
  }

  /** The most requests held at once (waiting + in flight): the tracker's memory, in records. */
  get heldPeak(): number {
    return this.held;
  }

  add(start: number, end: number, tokens: number, runaway = false): void {
    if (this.broken) return;
    // [s, s) holds no instant: such a request is never in flight.
    if (!(end > start)) return;
    if (start < this.frontier) {
      this.broken = true;
      this.active = null;
      return;
    }
    // Nothing is swept before the first row is a window old: earlier rows may still come.
    if (!this.started) {
      this.started = true;
      this.base = Math.floor((start - this.windowMs) / SLOT_MS);
    }
    // `| 0`: int32 bucket numbers (68 years of seconds), so that V8 does integer `%`, not fmod.
    const slot = (Math.floor(start / SLOT_MS) - this.base) | 0;
    if (start > this.latest) {
      this.latest = start;
      this.release((Math.floor((start - this.windowMs) / SLOT_MS) - this.base) | 0);
    }
    if (slot < this.next) {
      // Its bucket was swept already, but it starts at or after everything swept and before every
      // row still waiting (those are in later buckets): it can be swept now, in order.
      this.sweep(start, end, tokens, runaway ? 1 : 0);
      return;
    }
    const i = slot % this.ring;
    const j = this.record(start, end, tokens, runaway ? 1 : 0);
    // Insert in start order: almost always after the bucket's last row.
    const last = this.tail[i] as number;
    if (last === NONE) {
      this.head[i] = j;
      this.tail[i] = j;
    } else if ((this.starts[last] as number) <= start) {
      this.link[last] = j;
      this.tail[i] = j;
    } else {
      let prev = NONE;
      let at = this.head[i] as number;
      while (at !== NONE && (this.starts[at] as number) <= start) {
        prev = at;
        at = this.link[at] as number;
      }
      this.link[j] = at;
      if (prev === NONE) this.head[i] = j;
      else this.link[prev] = j;
    }
    this.waiting++;
    const held = this.waiting + (this.active as EndHeap).size;
    if (held > this.held) this.held = held;
  }

  /** A pool record for a waiting row (its link set to NONE). */
  private record(start: number, end: number, tokens: number, flag: number): number {
    let j = this.free;
    if (j !== NONE) {
      this.free = this.link[j] as number;
    } else {
      if (this.used === this.starts.length) this.grow();
      j = this.used++;
    }
    this.starts[j] = start;
    this.ends[j] = end;
    this.tokens[j] = tokens;
    this.flags[j] = flag;
    this.link[j] = NONE;
    return j;
  }

  private grow(): void {
    const n = this.starts.length * 2;
    const f = new Float64Array(n);
    f.set(this.starts);
    this.starts = f;
    const e = new Float64Array(n);
    e.set(this.ends);
    this.ends = e;
    const t = new Float64Array(n);
    t.set(this.tokens);
    this.tokens = t;
    const g = new Uint8Array(n);
    g.set(this.flags);
    this.flags = g;
    const l = new Int32Array(n);
    l.set(this.link);
    this.link = l;
  }

  /** The peaks, or null when the rows were not in order (see `ordered`). */
  finish(): Peaks | null {
    if (this.broken) return null;
    if (this.latest !== -Infinity) this.release((Math.floor(this.latest / SLOT_MS) - this.base + 1) | 0);
    return { all: this.allBest, withoutRunaways: this.sansBest };
  }

  /** Sweeps every bucket before `upto`, oldest first. */
  private release(upto: number): void {
    if (upto <= this.next) return;
    // Waiting rows lie in the `ring` buckets from `next` on (one window behind the previous latest
    // start, up to it): past those there is nothing to sweep, however far the new start jumped.
    const last = Math.min(upto, this.next + this.ring);
    for (let s = this.next; s < last; s++) {
      const i = s % this.ring;
      let j = this.head[i] as number;
      if (j === NONE) continue;
      this.head[i] = NONE;
      this.tail[i] = NONE;
      while (j !== NONE) {
        const after = this.link[j] as number;
        this.sweep(this.starts[j] as number, this.ends[j] as number, this.tokens[j] as number, this.flags[j] as number);
        this.link[j] = this.free;
        this.free = j;
        this.waiting--;
        j = after;
      }
    }
    this.next = upto;
  }

  private sweep(start: number, end: number, tokens: number, runaway: number): void {
    const active = this.active as EndHeap;
    // Ends at or before this start leave first: touching intervals do not overlap.
    while (active.size > 0 && active.minEnd() <= start) {
      const t = active.popTokens();
      this.allNow -= t;
      if (active.poppedRunaway === 0) this.sansNow -= t;
    }
    active.push(end, tokens, runaway);
    this.allNow += tokens;
    if (this.allNow > this.allBest) this.allBest = this.allNow;
    if (runaway === 0) {
      this.sansNow += tokens;
      if (this.sansNow > this.sansBest) this.sansBest = this.sansNow;
    }
    this.frontier = start;
  }
}

/** The same figure for a list held in memory: the reference the streaming trackers are tested against. */
export function peakOfIntervals(requests: readonly { start: number; end: number; tokens: number }[]): number {
  const events: [number, number][] = [];
  for (const r of requests) {
    if (!(r.end > r.start)) continue;
    events.push([r.start, r.tokens], [r.end, -r.tokens]);
  }
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let cur = 0;
  let best = 0;
  for (const [, d] of events) {
    cur += d;
    if (cur > best) best = cur;
  }
  return best;
}
