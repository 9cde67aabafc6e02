// Exact percentiles in bounded memory. Token counts are integers, so a count per distinct value is an
// exact summary: memory grows with the number of distinct values, never with the number of requests.
// Values below DENSE_LIMIT (128k tokens, where almost every prompt and reply falls) sit in a typed array
// that grows by doubling; the rare larger ones (runaway replies) sit in a Map.

/** 2^17 tokens: a dense count array of at most 1 MiB per histogram. */
const DENSE_LIMIT = 1 << 17;

export interface Quantiles {
  p50: number;
  p99: number;
  max: number;
}

/**
 * Nearest rank (docs/usage-observe.md): the ⌈q·n⌉-th smallest value, 1-based. `percent` is an integer
 * (50, 99) so the rank is computed in integers: ⌈p·n / 100⌉ never suffers 0.07 × 100 = 7.000000000000001.
 */
export function nearestRank(percent: number, n: number): number {
  if (!Number.isInteger(percent) || percent <= 0 || percent > 100) throw new Error(`percent must be an integer in 1..100, got ${percent}`);
  return Math.max(1, Math.ceil((percent * n) / 100));
}

/** The nearest-rank percentile of a list (the reference the histogram is tested against). */
export function percentileOf(values: readonly number[], percent: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[nearestRank(percent, sorted.length) - 1] as number;
}

export class TokenHistogram {
  private dense = new Float64Array(1024);
  private sparse = new Map<number, number>();
  private n = 0;
  private top = 0;

  get count(): number {
    return this.n;
  }

  get max(): number {
    return this.top;
  }

  /** Distinct values held: the memory this histogram uses, in entries. */
  get distinct(): number {
    let k = this.sparse.size;
    for (let i = 0; i < this.dense.length; i++) if (this.dense[i] !== 0) k++;
    return k;
  }

  add(value: number, times = 1): void {
    // The common case first: a small whole count already inside the dense array.
    if ((value | 0) === value && value >= 0 && value < this.dense.length) {
      this.n += times;
      if (value > this.top) this.top = value;
      this.dense[value] = (this.dense[value] as number) + times;
      return;
    }
    if (!Number.isSafeInteger(value) || value < 0) throw new Error(`token count must be a non-negative integer, got ${value}`);
    this.n += times;
    if (value > this.top) this.top = value;
    if (value < DENSE_LIMIT) {
      if (value >= this.dense.length) {
        let len = this.dense.length;
        while (len <= value) len *= 2;
        const grown = new Float64Array(len);
        grown.set(this.dense);
        this.dense = grown;
      }
      this.dense[value] = (this.dense[value] as number) + times;
    } else {
      this.sparse.set(value, (this.sparse.get(value) ?? 0) + times);
    }
  }

  /** The value of nearest rank `rank` (1-based). */
  valueAtRank(rank: number): number {
    if (this.n === 0) throw new Error("empty histogram");
    let seen = 0;
    for (let v = 0; v < this.dense.length; v++) {
      seen += this.dense[v] as number;
      if (seen >= rank) return v;
    }
    for (const v of [...this.sparse.keys()].sort((a, b) => a - b)) {
      seen += this.sparse.get(v) as number;
      if (seen >= rank) return v;
    }
    return this.top;
  }

  percentile(percent: number): number | null {
    if (this.n === 0) return null;
    return this.valueAtRank(nearestRank(percent, this.n));
  }

  quantiles(): Quantiles | null {
    if (this.n === 0) return null;
    return { p50: this.percentile(50) as number, p99: this.percentile(99) as number, max: this.top };
  }
}
