// A file's text with a line index, so that every node of a compose tree can say its line without
// carrying an object of its own: offsets are turned into lines by binary search, and a line's Pos
// object is made once and shared by every node written on it (a 10 MB file has hundreds of
// thousands of nodes; it has far fewer lines).
import type { Pos } from "./tree.js";

export class SourceText {
  private starts: Int32Array | null = null;
  private readonly positions = new Map<number, Pos>();

  constructor(
    readonly path: string,
    readonly text: string,
  ) {}

  /** The 1-based line of an offset. */
  lineAt(offset: number): number {
    const starts = this.lineStarts();
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] as number) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }

  /** The shared Pos of a line. */
  pos(line: number): Pos {
    let p = this.positions.get(line);
    if (!p) this.positions.set(line, (p = { file: this.path, line }));
    return p;
  }

  posAt(offset: number): Pos {
    return this.pos(this.lineAt(offset));
  }

  private lineStarts(): Int32Array {
    if (this.starts) return this.starts;
    let n = 1;
    for (let i = this.text.indexOf("\n"); i >= 0; i = this.text.indexOf("\n", i + 1)) n++;
    const starts = new Int32Array(n);
    let k = 1;
    for (let i = this.text.indexOf("\n"); i >= 0; i = this.text.indexOf("\n", i + 1)) starts[k++] = i + 1;
    return (this.starts = starts);
  }
}
