// Boots and plateaus (docs/usage-observe.md). A card's series splits into boots: its first sample starts
// one, and so does each sample whose used memory is below half the previous sample's (the engines let
// go of their memory when they stop). Per boot:
// - boot_free_bytes: free memory at the first sample 10 minutes or more after the boot (the engines
//   have loaded; this is what an operator reads "right after a restart");
// - plateau_free_bytes: the least free memory over the boot (after the allocator's creep, the CUDA
//   graphs, the fragmentation of days of traffic);
// - creep_bytes: the difference — what a sizing taken at boot misses.
//
// Computed one sample at a time, in time order (BootTracker): a year of per-minute samples is never
// held. The chart's lower bound (the least used memory once each boot settled) is kept on the way.

const SETTLE_MS = 10 * 60 * 1000;

export interface Boot {
  start: number;
  end: number;
  samples: number;
  boot_free_bytes: number | null;
  boot_free_at: number | null;
  plateau_free_bytes: number;
  plateau_at: number;
  creep_bytes: number | null;
  /** The least used memory past the boot's first 10 minutes (its only sample's, for a boot of one). */
  settled_low_used: number | null;
}

interface Open {
  start: number;
  end: number;
  samples: number;
  bootFree: number | null;
  bootFreeAt: number | null;
  lowFree: number;
  lowAt: number;
  firstUsed: number;
  settledLow: number;
}

export class BootTracker {
  private readonly done: Boot[] = [];
  private open: Open | null = null;
  private prevUsed = NaN;

  /** The next sample; times must not go back (the caller sorts). */
  push(t: number, used: number, free: number): void {
    const b = this.open;
    if (b === null || used < this.prevUsed / 2) {
      if (b) this.done.push(close(b));
      this.open = {
        start: t,
        end: t,
        samples: 1,
        bootFree: null,
        bootFreeAt: null,
        lowFree: free,
        lowAt: t,
        firstUsed: used,
        settledLow: Infinity,
      };
    } else {
      b.end = t;
      b.samples++;
      if (free < b.lowFree) {
        b.lowFree = free;
        b.lowAt = t;
      }
      if (t - b.start >= SETTLE_MS) this.settle(b, t, used, free);
    }
    this.prevUsed = used;
  }

  private settle(b: Open, t: number, used: number, free: number): void {
    if (b.bootFree === null) {
      b.bootFree = free;
      b.bootFreeAt = t;
    }
    if (used < b.settledLow) b.settledLow = used;
  }

  boots(): Boot[] {
    return this.open ? [...this.done, close(this.open)] : [...this.done];
  }
}

function close(b: Open): Boot {
  return {
    start: b.start,
    end: b.end,
    samples: b.samples,
    boot_free_bytes: b.bootFree,
    boot_free_at: b.bootFreeAt,
    plateau_free_bytes: b.lowFree,
    plateau_at: b.lowAt,
    creep_bytes: b.bootFree === null ? null : b.bootFree - b.lowFree,
    settled_low_used: b.samples === 1 ? b.firstUsed : Number.isFinite(b.settledLow) ? b.settledLow : null,
  };
}

/** Start indexes of the boots of a series of used-memory readings. */
export function bootStarts(used: ArrayLike<number>): number[] {
  if (used.length === 0) return [];
  const starts = [0];
  for (let i = 1; i < used.length; i++) if ((used[i] as number) < (used[i - 1] as number) / 2) starts.push(i);
  return starts;
}

/** The boots of a series held in arrays (time order). */
export function splitBoots(times: ArrayLike<number>, used: ArrayLike<number>, free: ArrayLike<number>): Boot[] {
  const t = new BootTracker();
  for (let i = 0; i < times.length; i++) t.push(times[i] as number, used[i] as number, free[i] as number);
  return t.boots();
}
