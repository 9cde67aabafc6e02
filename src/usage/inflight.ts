// The in-flight peak (contract section 16): the largest sum of prompt + completion tokens over the
// requests in flight at one instant, a request being in flight on [startTime, endTime) — a request that
// ends at the instant another starts does not overlap it.
//
// Streaming, exact, in bounded memory: a sweep over start instants needs the requests in start order,
// and exports are only roughly in it (LiteLLM writes a spend row when the request ends, in batches, so
// a long reply's row lands hours after its start). Rows wait in a heap ordered by start until the
// latest start seen is `windowMs` past them (default 6 h: longer than a 260k-token runaway at 40
// tokens/s, 1.8 h); then they are swept. Memory: the rows of one window plus the requests in flight,
// 24 + 16 bytes each. A row that starts before one already swept means the export is not in that order
// (a newest-first export, say): the tracker says so (`ordered` false) instead of guessing, and the
// caller recomputes that service exactly with an external sort (./spill.ts).
import { RecordHeap } from "./heap.js";

export const REORDER_WINDOW_MS = 6 * 3600 * 1000;

export class InflightPeak {
  private pending: RecordHeap | null = new RecordHeap(3);
  private active: RecordHeap | null = new RecordHeap(2);
  private current = 0;
  private best = 0;
  /** Start of the last swept request: no later row may start before it. */
  private frontier = -Infinity;
  private latest = -Infinity;
  private broken = false;
  private readonly rec = new Float64Array(3);
  private readonly end = new Float64Array(2);
  private held = 0;

  constructor(private readonly windowMs = REORDER_WINDOW_MS) {}

  /** False once a row arrived out of order beyond the window: finish() then has no answer. */
  get ordered(): boolean {
    return !this.broken;
  }

  /** The most requests held at once (waiting + in flight): the tracker's memory, in records. */
  get heldPeak(): number {
    return this.held;
  }

  add(start: number, end: number, tokens: number): void {
    const pending = this.pending;
    if (pending === null) return;
    // [s, s) holds no instant: such a request is never in flight.
    if (!(end > start)) return;
    if (start < this.frontier) {
      this.broken = true;
      this.pending = null;
      this.active = null;
      return;
    }
    pending.push(start, end, tokens);
    if (start > this.latest) this.latest = start;
    const held = pending.size + (this.active?.size ?? 0);
    if (held > this.held) this.held = held;
    const cutoff = this.latest - this.windowMs;
    while (pending.size > 0 && pending.peek(0) < cutoff) this.sweep(pending);
  }

  /** The peak, or null when the rows were not in order (see `ordered`). */
  finish(): number | null {
    const pending = this.pending;
    if (pending === null) return null;
    while (pending.size > 0) this.sweep(pending);
    return this.best;
  }

  private sweep(pending: RecordHeap): void {
    const active = this.active as RecordHeap;
    pending.pop(this.rec);
    const start = this.rec[0] as number;
    // Ends at or before this start leave first: touching intervals do not overlap.
    while (active.size > 0 && active.peek(0) <= start) {
      active.pop(this.end);
      this.current -= this.end[1] as number;
    }
    const tokens = this.rec[2] as number;
    this.current += tokens;
    active.push(this.rec[1] as number, tokens);
    if (this.current > this.best) this.best = this.current;
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
