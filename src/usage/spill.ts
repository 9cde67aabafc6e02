// The exact in-flight peak for rows in any order, in bounded memory: an external sort of the start and
// end events. Used when an export is not in start order (./inflight.ts says so), e.g. newest first.
//
// Events (time, ±tokens) are collected in chunks of CHUNK_EVENTS (16 MiB), each chunk sorted by time and
// written to a temp file as a run; the runs are then merged with a heap, reading BLOCK_EVENTS of each at
// a time. At one instant the in-flight sum is the running total after every event of that instant (ends
// leave, starts join), so the peak is the largest running total where the time changes — the order of
// events within one instant does not matter. Memory: one chunk, or one block per run while merging.
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RecordHeap } from "./heap.js";

const CHUNK_EVENTS = 1 << 20;
const BLOCK_EVENTS = 1 << 15;

export class SpillPeak {
  private times: Float64Array;
  private deltas: Float64Array;
  private n = 0;
  private runs: { file: string; events: number }[] = [];
  private dir: string | null = null;

  constructor(private readonly chunk = CHUNK_EVENTS) {
    this.times = new Float64Array(chunk);
    this.deltas = new Float64Array(chunk);
  }

  /** Runs written to disk so far (0 when everything fit in one chunk). */
  get spilled(): number {
    return this.runs.length;
  }

  add(start: number, end: number, tokens: number): void {
    if (!(end > start)) return;
    this.push(start, tokens);
    this.push(end, -tokens);
  }

  finish(): number {
    try {
      if (this.runs.length === 0) return sweepSorted(...this.sortedChunk());
      if (this.n > 0) this.spill();
      return this.merge();
    } finally {
      this.dispose();
    }
  }

  /** Removes the temp runs without computing (after a failed read). */
  dispose(): void {
    if (this.dir !== null) rmSync(this.dir, { recursive: true, force: true });
    this.dir = null;
  }

  private push(time: number, delta: number): void {
    if (this.n === this.chunk) this.spill();
    this.times[this.n] = time;
    this.deltas[this.n] = delta;
    this.n++;
  }

  private sortedChunk(): [Float64Array, Float64Array] {
    const n = this.n;
    const order = new Uint32Array(n);
    for (let i = 0; i < n; i++) order[i] = i;
    const t = this.times;
    order.sort((a, b) => (t[a] as number) - (t[b] as number));
    const times = new Float64Array(n);
    const deltas = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const j = order[i] as number;
      times[i] = t[j] as number;
      deltas[i] = this.deltas[j] as number;
    }
    return [times, deltas];
  }

  private spill(): void {
    const [times, deltas] = this.sortedChunk();
    this.dir ??= mkdtempSync(join(tmpdir(), "kvgate-inflight-"));
    const file = join(this.dir, `run-${this.runs.length}.bin`);
    const interleaved = new Float64Array(times.length * 2);
    for (let i = 0; i < times.length; i++) {
      interleaved[2 * i] = times[i] as number;
      interleaved[2 * i + 1] = deltas[i] as number;
    }
    const fd = openSync(file, "w");
    try {
      writeSync(fd, new Uint8Array(interleaved.buffer));
    } finally {
      closeSync(fd);
    }
    this.runs.push({ file, events: times.length });
    this.n = 0;
  }

  private merge(): number {
    const readers = this.runs.map((r) => new RunReader(r.file, r.events));
    const heap = new RecordHeap(3);
    readers.forEach((r, i) => {
      if (r.next()) heap.push(r.time, r.delta, i);
    });
    const top = new Float64Array(3);
    let cur = 0;
    let best = 0;
    let at = NaN;
    try {
      while (heap.size > 0) {
        heap.pop(top);
        const time = top[0] as number;
        if (time !== at) {
          if (cur > best) best = cur;
          at = time;
        }
        cur += top[1] as number;
        const reader = readers[top[2] as number] as RunReader;
        if (reader.next()) heap.push(reader.time, reader.delta, top[2]);
      }
      return Math.max(best, cur);
    } finally {
      for (const r of readers) r.close();
    }
  }
}

/** The peak over events already sorted by time. */
function sweepSorted(times: Float64Array, deltas: Float64Array): number {
  let cur = 0;
  let best = 0;
  for (let i = 0; i < times.length; i++) {
    if (i > 0 && times[i] !== times[i - 1] && cur > best) best = cur;
    cur += deltas[i] as number;
  }
  return Math.max(best, cur);
}

class RunReader {
  private fd: number;
  private block = new Float64Array(BLOCK_EVENTS * 2);
  private have = 0;
  private at = 0;
  private left: number;
  time = 0;
  delta = 0;

  constructor(file: string, events: number) {
    this.fd = openSync(file, "r");
    this.left = events;
  }

  next(): boolean {
    if (this.at === this.have) {
      if (this.left === 0) return false;
      const take = Math.min(this.left, BLOCK_EVENTS);
      const bytes = new Uint8Array(this.block.buffer, 0, take * 16);
      let got = 0;
      while (got < bytes.length) {
        const n = readSync(this.fd, bytes, got, bytes.length - got, null);
        if (n === 0) throw new Error("an in-flight spill file ended early (was the temp folder cleaned while kvgate ran?)");
        got += n;
      }
      this.have = take;
      this.at = 0;
      this.left -= take;
    }
    this.time = this.block[2 * this.at] as number;
    this.delta = this.block[2 * this.at + 1] as number;
    this.at++;
    return true;
  }

  close(): void {
    closeSync(this.fd);
  }
}
