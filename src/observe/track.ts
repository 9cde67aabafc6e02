// One card's readings, one at a time: the reading checked (used and free within the card's total),
// free memory filled in (the source's own free figure, else its total − used, else the fleet's CUDA
// total − used), and handed to the boot tracker in time order. Two readings of one card at one instant
// (overlapping files, or a line written twice) keep the later one, as read. A reading earlier than one
// already taken means the input is not in time order for this card: the track says so (`ordered`
// false) and the caller reads that card again into memory and sorts it (./collect.ts).
import { BootTracker, type Boot } from "./boots.js";
import type { GpuReading } from "./sample.js";

export interface TrackOptions {
  host: string;
  index: number;
  /** The fleet's CUDA total for the card (kvgate.yaml cuda_total, else total), when it lists the card. */
  fleetTotal: number | null;
  /** A reading that cannot be used, with why. */
  problem: (line: number | null, reason: string) => void;
}

const MIB = 1024 * 1024;
const mib = (b: number): string => `${Math.round(b / MIB)} MiB`;

export class CardTrack {
  readonly host: string;
  readonly index: number;
  /** The total the free figures come from: the source's (its first reading that has one), else the fleet's. */
  total: number | null = null;
  totalSource: "metrics" | "fleet" = "metrics";
  /** Readings that had no total to compute free memory from (neither the source's nor the fleet's). */
  noTotal = 0;
  ordered = true;
  samples = 0;
  first = Infinity;
  last = -Infinity;
  private readonly boots = new BootTracker();
  private pendT = NaN;
  private pendUsed = 0;
  private pendFree = 0;
  private readonly o: TrackOptions;

  constructor(o: TrackOptions) {
    this.o = o;
    this.host = o.host;
    this.index = o.index;
  }

  /** The reading as (used, free) bytes, or null after reporting why it cannot be used. */
  resolve(r: GpuReading, line: number | null): [number, number] | null {
    // A card has one total: a reading that names another is not this card's (a file that mixes hosts
    // or cards under one index), and would put the card's free memory above its total.
    if (r.total !== null && this.total !== null && this.totalSource === "metrics" && r.total !== this.total) {
      this.o.problem(line, `impossible reading: its total ${mib(r.total)} is not the card's total ${mib(this.total)}, read before`);
      return null;
    }
    const total = r.total ?? this.total ?? this.o.fleetTotal;
    if (total === null) {
      this.noTotal++;
      return null;
    }
    const used = r.used ?? total - (r.free ?? 0);
    const free = r.free ?? total - used;
    const source = r.total !== null ? "metrics" : this.total !== null ? this.totalSource : "fleet";
    const of = r.total !== null ? "its total" : source === "fleet" ? "the card's total in kvgate.yaml" : "the card's total";
    if (used > total) {
      this.o.problem(line, `impossible reading: used ${mib(used)} is above ${of}, ${mib(total)}`);
      return null;
    }
    if (used < 0 || free < 0) {
      this.o.problem(line, `impossible reading: ${used < 0 ? `used ${mib(used)}` : `free ${mib(free)}`} is below 0 (${of} ${mib(total)})`);
      return null;
    }
    // The card's total is the first possible reading's (an impossible one never sets it).
    if (this.total === null) {
      this.total = total;
      this.totalSource = source;
    }
    return [used, free];
  }

  add(r: GpuReading, line: number | null): void {
    const uf = this.resolve(r, line);
    if (uf === null || !this.ordered) return;
    const t = r.t;
    if (t === this.pendT) {
      this.pendUsed = uf[0];
      this.pendFree = uf[1];
      return;
    }
    if (t < this.pendT) {
      this.ordered = false;
      return;
    }
    if (!Number.isNaN(this.pendT)) this.commit();
    this.pendT = t;
    this.pendUsed = uf[0];
    this.pendFree = uf[1];
  }

  private commit(): void {
    this.samples++;
    if (this.pendT < this.first) this.first = this.pendT;
    this.last = this.pendT;
    this.boots.push(this.pendT, this.pendUsed, this.pendFree);
  }

  finish(): Boot[] {
    if (!Number.isNaN(this.pendT)) this.commit();
    this.pendT = NaN;
    return this.boots.boots();
  }
}

/** A card's readings held in memory (for an input out of time order): sorted, then tracked. */
export class HeldReadings {
  private t = new Float64Array(1024);
  private u = new Float64Array(1024);
  private f = new Float64Array(1024);
  private n = 0;

  push(t: number, used: number, free: number): void {
    if (this.n === this.t.length) {
      const grow = (a: Float64Array<ArrayBuffer>): Float64Array<ArrayBuffer> => {
        const b = new Float64Array(a.length * 2);
        b.set(a);
        return b;
      };
      this.t = grow(this.t);
      this.u = grow(this.u);
      this.f = grow(this.f);
    }
    this.t[this.n] = t;
    this.u[this.n] = used;
    this.f[this.n] = free;
    this.n++;
  }

  /** Each reading in time order (stable: of equal times the later pushed comes last). */
  each(fn: (t: number, used: number, free: number) => void): void {
    const order = new Uint32Array(this.n);
    for (let i = 0; i < this.n; i++) order[i] = i;
    const t = this.t;
    order.sort((a, b) => (t[a] as number) - (t[b] as number) || a - b);
    for (let k = 0; k < this.n; k++) {
      const i = order[k] as number;
      const next = order[k + 1];
      // Of readings at one instant, the last pushed is kept.
      if (next !== undefined && t[next] === t[i]) continue;
      fn(t[i] as number, this.u[i] as number, this.f[i] as number);
    }
  }
}
