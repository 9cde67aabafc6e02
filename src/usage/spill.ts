// The exact in-flight peaks for rows in any order, in bounded memory: an external sort of the start and
// end events. Used when an export is not in start order (./inflight.ts says so), e.g. newest first.
//
// One sort for every service that needs it: each event is (time, ±tokens, who) where `who` packs the
// service, the deployment and whether the reply is one an output cap would cut. Events are collected
// in chunks of CHUNK_EVENTS, each chunk sorted by time and written to a temp file as a run; the runs
// are merged with a heap, BLOCK_EVENTS of each at a time. Per accumulator (a service with every
// request, the same without the cut replies, a deployment) the peak is its running total where the
// time changes — the order of events within one instant does not matter. Memory: one chunk (12 MiB),
// or one block per run while merging, whatever the number of services.
//
// The runs live in a folder of the temp directory named for the process (kvgate-inflight-<pid>-…).
// Each run file is unlinked as soon as it is open, so even a SIGKILL leaves no data behind; the folder
// itself is removed when the sweep ends, on SIGINT and SIGTERM, and — if a killed run left it — by the
// next `usage` (cleanStaleSpills).
import { closeSync, openSync, readSync, unlinkSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cleanStaleTemp, makeTempFolder, type TempFolder } from "../git/temp.js";
import { RecordHeap } from "./heap.js";

const CHUNK_EVENTS = 1 << 19;
const BLOCK_EVENTS = 1 << 14;

/** Deployment numbers take DEP_BITS of `who`: 2^20 deployments per run, far beyond any gateway. */
const DEP_SPAN = 2 ** 20;

/** `who` of an event: service index, deployment index (-1: none), cut. Integers below 2^53. */
export function who(service: number, deployment: number, cut: boolean): number {
  return (service * DEP_SPAN + (deployment + 1)) * 2 + (cut ? 1 : 0);
}

export interface SweptPeaks {
  /** Per service index: every request, and without the cut replies. */
  all: Float64Array;
  sans: Float64Array;
  /** Per deployment index. */
  deployments: Float64Array;
}

/** Removes the temp folders of kvgate processes that are gone (a run killed by SIGKILL or a crash): ../git/temp.ts. */
export const cleanStaleSpills = cleanStaleTemp;

export class SpillSweep {
  private times: Float64Array;
  private deltas: Float64Array;
  private whos: Float64Array;
  private n = 0;
  private runs: { fd: number; events: number }[] = [];
  private readonly temp: TempFolder;
  private readonly dir: string;

  constructor(
    private readonly services: number,
    private readonly deploymentCount: number,
    private readonly chunk = CHUNK_EVENTS,
    root = tmpdir(),
  ) {
    this.times = new Float64Array(chunk);
    this.deltas = new Float64Array(chunk);
    this.whos = new Float64Array(chunk);
    // Made at once, so that it exists (and is cleaned) from the start of the pass that may need it.
    // Guarded by ../git/temp.ts: removed on SIGINT and SIGTERM (then the process dies of the signal).
    this.temp = makeTempFolder("inflight", { root });
    this.dir = this.temp.path;
  }

  /** The folder the runs are written in. */
  get folder(): string {
    return this.dir;
  }

  /** Runs written to disk so far (0 when everything fit in one chunk). */
  get spilled(): number {
    return this.runs.length;
  }

  add(start: number, end: number, tokens: number, w: number): void {
    if (!(end > start)) return;
    this.push(start, tokens, w);
    this.push(end, -tokens, w);
  }

  finish(): SweptPeaks {
    try {
      const out: SweptPeaks = {
        all: new Float64Array(this.services),
        sans: new Float64Array(this.services),
        deployments: new Float64Array(this.deploymentCount),
      };
      const sweep = new Sweeper(out, this.services, this.deploymentCount);
      if (this.runs.length === 0) {
        const [t, d, w] = this.sortedChunk();
        for (let i = 0; i < t.length; i++) sweep.event(t[i] as number, d[i] as number, w[i] as number);
      } else {
        if (this.n > 0) this.spill();
        this.merge(sweep);
      }
      sweep.end();
      return out;
    } finally {
      this.dispose();
    }
  }

  /** Closes the runs and removes the folder (after a failed read, or on a signal). */
  dispose(): void {
    for (const r of this.runs) {
      try {
        closeSync(r.fd);
      } catch {
        // already closed
      }
    }
    this.runs = [];
    this.temp.dispose();
  }

  private push(time: number, delta: number, w: number): void {
    if (this.n === this.chunk) this.spill();
    this.times[this.n] = time;
    this.deltas[this.n] = delta;
    this.whos[this.n] = w;
    this.n++;
  }

  private sortedChunk(): [Float64Array, Float64Array, Float64Array] {
    const n = this.n;
    const order = new Uint32Array(n);
    for (let i = 0; i < n; i++) order[i] = i;
    const t = this.times;
    order.sort((a, b) => (t[a] as number) - (t[b] as number));
    const times = new Float64Array(n);
    const deltas = new Float64Array(n);
    const whos = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const j = order[i] as number;
      times[i] = t[j] as number;
      deltas[i] = this.deltas[j] as number;
      whos[i] = this.whos[j] as number;
    }
    return [times, deltas, whos];
  }

  private spill(): void {
    const [times, deltas, whos] = this.sortedChunk();
    const file = join(this.dir, `run-${this.runs.length}.bin`);
    const fd = openSync(file, "w+");
    // Unlinked while open: the data lives as long as the descriptor, whatever kills the process.
    unlinkSync(file);
    const interleaved = new Float64Array(times.length * 3);
    for (let i = 0; i < times.length; i++) {
      interleaved[3 * i] = times[i] as number;
      interleaved[3 * i + 1] = deltas[i] as number;
      interleaved[3 * i + 2] = whos[i] as number;
    }
    const bytes = new Uint8Array(interleaved.buffer);
    let at = 0;
    while (at < bytes.length) at += writeSync(fd, bytes, at, bytes.length - at, at);
    this.runs.push({ fd, events: times.length });
    this.n = 0;
  }

  private merge(sweep: Sweeper): void {
    const readers = this.runs.map((r) => new RunReader(r.fd, r.events));
    const heap = new RecordHeap(2);
    readers.forEach((r, i) => {
      if (r.next()) heap.push(r.time, i);
    });
    const top = new Float64Array(2);
    while (heap.size > 0) {
      heap.pop(top);
      const reader = readers[top[1] as number] as RunReader;
      sweep.event(reader.time, reader.delta, reader.who);
      if (reader.next()) heap.push(reader.time, top[1]);
    }
  }
}

/** Running sums per accumulator over events in time order; each peak taken where its time changes. */
class Sweeper {
  private readonly cur: Float64Array;
  private readonly last: Float64Array;
  private readonly best: Float64Array;

  constructor(
    private readonly out: SweptPeaks,
    private readonly services: number,
    deployments: number,
  ) {
    // Accumulators: [0, s) every request per service, [s, 2s) without the cut ones, then deployments.
    const n = 2 * services + deployments;
    this.cur = new Float64Array(n);
    this.best = new Float64Array(n);
    this.last = new Float64Array(n).fill(NaN);
  }

  event(time: number, delta: number, w: number): void {
    const cut = w % 2 === 1;
    const rest = (w - (cut ? 1 : 0)) / 2;
    const service = Math.floor(rest / DEP_SPAN);
    const dep = (rest % DEP_SPAN) - 1;
    this.bump(service, time, delta);
    if (!cut) this.bump(this.services + service, time, delta);
    if (dep >= 0) this.bump(2 * this.services + dep, time, delta);
  }

  private bump(a: number, time: number, delta: number): void {
    if (this.last[a] !== time) {
      if ((this.cur[a] as number) > (this.best[a] as number)) this.best[a] = this.cur[a] as number;
      this.last[a] = time;
    }
    this.cur[a] = (this.cur[a] as number) + delta;
  }

  end(): void {
    for (let a = 0; a < this.cur.length; a++) if ((this.cur[a] as number) > (this.best[a] as number)) this.best[a] = this.cur[a] as number;
    const s = this.services;
    this.out.all.set(this.best.subarray(0, s));
    this.out.sans.set(this.best.subarray(s, 2 * s));
    this.out.deployments.set(this.best.subarray(2 * s));
  }
}

class RunReader {
  private block = new Float64Array(BLOCK_EVENTS * 3);
  private have = 0;
  private at = 0;
  private left: number;
  private offset = 0;
  time = 0;
  delta = 0;
  who = 0;

  constructor(
    private readonly fd: number,
    events: number,
  ) {
    this.left = events;
  }

  next(): boolean {
    if (this.at === this.have) {
      if (this.left === 0) return false;
      const take = Math.min(this.left, BLOCK_EVENTS);
      const bytes = new Uint8Array(this.block.buffer, 0, take * 24);
      let got = 0;
      while (got < bytes.length) {
        const n = readSync(this.fd, bytes, got, bytes.length - got, this.offset + got);
        if (n === 0) throw new Error("an in-flight spill run ended early");
        got += n;
      }
      this.offset += got;
      this.have = take;
      this.at = 0;
      this.left -= take;
    }
    this.time = this.block[3 * this.at] as number;
    this.delta = this.block[3 * this.at + 1] as number;
    this.who = this.block[3 * this.at + 2] as number;
    this.at++;
    return true;
  }
}
