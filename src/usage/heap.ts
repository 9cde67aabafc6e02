// A binary min-heap of fixed-width numeric records in one growable Float64Array: no object per entry,
// so a heap of a million requests costs 8 bytes per field, not a JS object each.

export class RecordHeap {
  private data: Float64Array;
  private n = 0;

  /** `width` fields per record; field 0 is the key the heap orders by (ties: field 1, then 2, ...). */
  constructor(private readonly width: 1 | 2 | 3, initial = 256) {
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
