// Boots and plateaus (contract section 16). A card's series splits into boots: its first sample starts
// one, and so does each sample whose used memory is below half the previous sample's (the engines let
// go of their memory when they stop). Per boot:
// - boot_free_bytes: free memory at the first sample 10 minutes or more after the boot (the engines
//   have loaded; this is what an operator reads "right after a restart");
// - plateau_free_bytes: the least free memory over the boot (after the allocator's creep, the CUDA
//   graphs, the fragmentation of days of traffic);
// - creep_bytes: the difference — what a sizing taken at boot misses.

const SETTLE_MS = 10 * 60 * 1000;

export interface Boot {
  /** Indexes into the series: [first, last]. */
  first: number;
  last: number;
  start: number;
  end: number;
  samples: number;
  boot_free_bytes: number | null;
  boot_free_at: number | null;
  plateau_free_bytes: number;
  plateau_at: number;
  creep_bytes: number | null;
}

/** Start indexes of the boots of a series of used-memory readings. */
export function bootStarts(used: ArrayLike<number>): number[] {
  if (used.length === 0) return [];
  const starts = [0];
  for (let i = 1; i < used.length; i++) if ((used[i] as number) < (used[i - 1] as number) / 2) starts.push(i);
  return starts;
}

export function splitBoots(times: ArrayLike<number>, used: ArrayLike<number>, free: ArrayLike<number>): Boot[] {
  const starts = bootStarts(used);
  return starts.map((first, k) => {
    const last = (starts[k + 1] ?? used.length) - 1;
    const start = times[first] as number;
    let settled = -1;
    let low = first;
    for (let i = first; i <= last; i++) {
      if (settled < 0 && (times[i] as number) - start >= SETTLE_MS) settled = i;
      if ((free[i] as number) < (free[low] as number)) low = i;
    }
    const bootFree = settled < 0 ? null : (free[settled] as number);
    return {
      first,
      last,
      start,
      end: times[last] as number,
      samples: last - first + 1,
      boot_free_bytes: bootFree,
      boot_free_at: settled < 0 ? null : (times[settled] as number),
      plateau_free_bytes: free[low] as number,
      plateau_at: times[low] as number,
      creep_bytes: bootFree === null ? null : bootFree - (free[low] as number),
    };
  });
}
