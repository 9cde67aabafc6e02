// Stage 1's keywords as a dense automaton over bytes (issue 28): Aho–Corasick with every transition
// filled in, so each byte costs one table lookup whatever the number of keywords. On the code-like
// history (20 MB of added lines, 185 keywords) the trie regex it replaces had 270 ms of the 1,170 the
// audit's profile sampled, the automaton 30 (V8 tries the alternation at every position; this reads
// each byte once); the whole process's CPU fell by 60 ms. It runs on a Buffer as it came from git (no
// latin1 string made) or on a string's UTF-16 units. Keywords are printable ASCII (rules/detectors.ts).
//
// Exact with respect to the regex it stands for (`i`, no `u`: an ASCII letter matches only an ASCII
// letter): the keywords are ASCII, A–Z fold to a–z, and every byte or unit at or above 128 leads back
// to the start. test/secrets/prefilter.test.ts holds it to the regex line by line.

/** How many states' rows are kept: a state number must fit the table's 16 bits. */
const MAX_STATES = 65_536;

export class KeywordAutomaton {
  /** state * 128 + byte → next state (bytes below 128; the rest lead to state 0). */
  private readonly next: Uint16Array;
  /** Per state: the best grade of the keywords that end there (0: none). */
  private readonly grade: Uint8Array;

  /** `words`: lowercase ASCII keywords with their grade (1: a line may match; 2: a block may open). */
  constructor(words: ReadonlyMap<string, 1 | 2>) {
    // The trie first (goto), then breadth-first failure links folded into every row.
    const rows: number[][] = [new Array<number>(128).fill(-1)];
    const grade: number[] = [0];
    for (const [w, g] of words) {
      let s = 0;
      for (let i = 0; i < w.length; i++) {
        const c = w.charCodeAt(i);
        if (c >= 128) throw new Error(`prefilter keyword ${JSON.stringify(w)} is not ASCII`);
        const row = rows[s] as number[];
        let t = row[c] as number;
        if (t < 0) {
          t = rows.length;
          rows.push(new Array<number>(128).fill(-1));
          grade.push(0);
          row[c] = t;
          // The regex is case-insensitive: the upper case letter goes the same way.
          if (c >= 97 && c <= 122) row[c - 32] = t;
        }
        s = t;
      }
      grade[s] = Math.max(grade[s] as number, g);
    }
    if (rows.length > MAX_STATES) throw new Error(`the prefilter's keywords need ${rows.length} states (at most ${MAX_STATES})`);
    const fail = new Array<number>(rows.length).fill(0);
    // An upper case letter leads to its lower case kid: a kid is queued (and its failure set) once.
    const queued = new Uint8Array(rows.length);
    const root = rows[0] as number[];
    const queue: number[] = [];
    for (let c = 0; c < 128; c++) {
      const t = root[c] as number;
      if (t < 0) root[c] = 0;
      else if (queued[t] === 0) {
        queued[t] = 1;
        queue.push(t);
      }
    }
    for (let q = 0; q < queue.length; q++) {
      const s = queue[q] as number;
      const row = rows[s] as number[];
      const f = rows[fail[s] as number] as number[];
      // A state's output holds those of its longest proper suffix that is a keyword prefix.
      grade[s] = Math.max(grade[s] as number, grade[fail[s] as number] as number);
      for (let c = 0; c < 128; c++) {
        const t = row[c] as number;
        if (t < 0) row[c] = f[c] as number;
        else if (queued[t] === 0) {
          queued[t] = 1;
          fail[t] = f[c] as number;
          queue.push(t);
        }
      }
    }
    this.next = new Uint16Array(rows.length * 128);
    rows.forEach((row, s) => this.next.set(row, s * 128));
    this.grade = Uint8Array.from(grade);
  }

  /**
   * `hit(at, grade)` at the last character of each keyword found in [from, to) of a Buffer or a
   * string, in order; keywords ending at one place give one hit with their best grade.
   */
  scanBytes(b: Uint8Array, from: number, to: number, hit: (at: number, grade: 1 | 2) => void): void {
    const next = this.next;
    const grade = this.grade;
    let s = 0;
    for (let i = from; i < to; i++) {
      const c = b[i] as number;
      s = c < 128 ? (next[(s << 7) | c] as number) : 0;
      const g = grade[s] as number;
      if (g !== 0) hit(i, g as 1 | 2);
    }
  }

  scanText(text: string, from: number, to: number, hit: (at: number, grade: 1 | 2) => void): void {
    const next = this.next;
    const grade = this.grade;
    let s = 0;
    for (let i = from; i < to; i++) {
      const c = text.charCodeAt(i);
      s = c < 128 ? (next[(s << 7) | c] as number) : 0;
      const g = grade[s] as number;
      if (g !== 0) hit(i, g as 1 | 2);
    }
  }
}
