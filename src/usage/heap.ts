// A binary min-heap of fixed-width numeric records in one growable Float64Array: no object per entry,
// so a heap of a million requests costs 8 bytes per field, not a JS object each.

export class RecordHeap {
  private data: Float64Array;
  private n = 0;

  /** `width` fields per record; field 0 is the key the heap orders by (ties: field 1, then 2, ...). */
  constructor(
    private readonly width: 1 | 2 | 3,
    initial = 256,
  ) {
    this.data = new Float64Array(initial * width);
  }

  get size(): number {
    return this.n;
  }

  /** Records the heap can hold before it grows: what it costs in memory (× width × 8 bytes). */
  get capacity(): number {
    return this.data.length / this.width;
  }

  /** Field `f` of the smallest record. */
  peek(f = 0): number {
    if (this.n === 0) throw new Error("empty heap");
    return this.data[f] as number;
  }

  /** Up to three fields (no rest array: this runs once per request on inputs of millions of rows). */
  push(a: number, b = 0, c = 0): void {
    const w = this.width;
    if ((this.n + 1) * w > this.data.length) {
      const grown = new Float64Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    let i = this.n++;
    const at = i * w;
    this.data[at] = a;
    if (w > 1) this.data[at + 1] = b;
    if (w > 2) this.data[at + 2] = c;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(i, parent)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  /** Removes the smallest record and copies its fields into `out`. */
  pop(out: Float64Array): void {
    if (this.n === 0) throw new Error("empty heap");
    const w = this.width;
    for (let f = 0; f < w; f++) out[f] = this.data[f] as number;
    this.n--;
    if (this.n === 0) return;
    for (let f = 0; f < w; f++) this.data[f] = this.data[this.n * w + f] as number;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < this.n && this.less(l, m)) m = l;
      if (r < this.n && this.less(r, m)) m = r;
      if (m === i) return;
      this.swap(i, m);
      i = m;
    }
  }

  private less(a: number, b: number): boolean {
    const w = this.width;
    for (let f = 0; f < w; f++) {
      const x = this.data[a * w + f] as number;
      const y = this.data[b * w + f] as number;
      if (x !== y) return x < y;
    }
    return false;
  }

  private swap(a: number, b: number): void {
    const w = this.width;
    for (let f = 0; f < w; f++) {
      const t = this.data[a * w + f] as number;
      this.data[a * w + f] = this.data[b * w + f] as number;
      this.data[b * w + f] = t;
    }
  }
}

/**
 * The requests in flight, smallest end first: what the in-flight sweep pops and pushes once per
 * request. Specialised (end only as the key — which of two equal ends leaves first changes no sum —
 * parallel typed arrays, moves instead of swaps) because it runs for every row of a 10-million-row file.
 */
export class EndHeap {
  private ends = new Float64Array(256);
  private tokens = new Float64Array(256);
  private flags = new Uint8Array(256);
  private n = 0;
  /** The runaway flag of the record popTokens() removed last. */
  poppedRunaway = 0;

  get size(): number {
    return this.n;
  }

  clone(): EndHeap {
    const c = new EndHeap();
    c.ends = this.ends.slice();
    c.tokens = this.tokens.slice();
    c.flags = this.flags.slice();
    c.n = this.n;
    c.poppedRunaway = this.poppedRunaway;
    return c;
  }

  minEnd(): number {
    return this.ends[0] as number;
  }

  push(end: number, tokens: number, flag: number): void {
    if (this.n === this.ends.length) {
      const grow = <T extends Float64Array | Uint8Array>(a: T, make: (n: number) => T): T => {
        const b = make(a.length * 2);
        b.set(a);
        return b;
      };
      this.ends = grow(this.ends, (n) => new Float64Array(n));
      this.tokens = grow(this.tokens, (n) => new Float64Array(n));
      this.flags = grow(this.flags, (n) => new Uint8Array(n));
    }
    const ends = this.ends;
    let i = this.n++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if ((ends[p] as number) <= end) break;
      ends[i] = ends[p] as number;
      this.tokens[i] = this.tokens[p] as number;
      this.flags[i] = this.flags[p] as number;
      i = p;
    }
    ends[i] = end;
    this.tokens[i] = tokens;
    this.flags[i] = flag;
  }

  /** Removes the smallest end; returns its tokens (its flag in `poppedRunaway`). */
  popTokens(): number {
    const ends = this.ends;
    const tokens = this.tokens;
    const flags = this.flags;
    const out = tokens[0] as number;
    this.poppedRunaway = flags[0] as number;
    const n = --this.n;
    if (n === 0) return out;
    const end = ends[n] as number;
    const tok = tokens[n] as number;
    const flag = flags[n] as number;
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && (ends[c + 1] as number) < (ends[c] as number)) c++;
      if ((ends[c] as number) >= end) break;
      ends[i] = ends[c] as number;
      tokens[i] = tokens[c] as number;
      flags[i] = flags[c] as number;
      i = c;
    }
    ends[i] = end;
    tokens[i] = tok;
    flags[i] = flag;
    return out;
  }
}
