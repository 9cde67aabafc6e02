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

  /** The last offset asked for and its line: the parser asks in text order, so most answers are a
   *  short count of newlines from there (no index of the whole file, which may be refused early). */
  private cursor = 0;
  private cursorLine = 1;

  /** The 1-based line of an offset. */
  lineAt(offset: number): number {
    if (offset >= this.cursor && offset - this.cursor < 4096) {
      let line = this.cursorLine;
      for (let i = this.text.indexOf("\n", this.cursor); i >= 0 && i < offset; i = this.text.indexOf("\n", i + 1)) line++;
      this.cursor = offset;
      this.cursorLine = line;
      return line;
    }
    const line = this.indexedLine(offset);
    this.cursor = offset;
    this.cursorLine = line;
    return line;
  }

  private indexedLine(offset: number): number {
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

  private last: Pos | null = null;

  /** The shared Pos of a line. */
  pos(line: number): Pos {
    if (this.last?.line === line) return this.last;
    let p = this.positions.get(line);
    if (!p) this.positions.set(line, (p = { file: this.path, line }));
    this.last = p;
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
