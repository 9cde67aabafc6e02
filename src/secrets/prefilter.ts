// The secret scan's prefilter (issue 28): which detectors may match on a line, decided without running
// them. Each detector of rules/secrets.yaml names keywords (lowercase, 3 characters or more), one of
// which every match holds; one that has none names a gate instead (an ASCII regex every match holds),
// and a generic detector's keyword must also start its `assignment` shape (the name and how it is given
// its value: `name = `, `name: `, `--name VALUE`, .netrc's `password VALUE`; rules/secrets.yaml).
//
// Two stages. Over a chunk (many lines: a commit's log output, a streamed file's 1 MiB, the staged
// lines joined), ONE regex — every keyword and context word as a trie of alternatives, then the gates —
// finds where a line may matter; a line without a hit is never decoded or scanned. On such a line the
// same regex, re-run at every hit's next position (so overlapping keywords are all seen), tells which
// detectors to run. Measured on 21 MB of real added lines (eslint's last 2,000 commits, 170 keywords,
// CPU ms): this regex 125–135, a flat alternation 162, the npm Aho–Corasick packages 3,500
// (ahocorasick) to 6,500 (@monyone/aho-corasick) and more (modern-ahocorasick segments graphemes:
// 88 ms per 64 KiB). Over much text (an audit, a big file) stage 1 then runs the keywords as a dense
// automaton over the bytes (./keyword-automaton.ts: each byte one table lookup; in the code-like
// history's profile the regex's 270 ms became 30) and the gates as a regex of their own.
//
// Both stages are exact with respect to ASCII: keywords and gates hold only ASCII and the regex runs
// case-insensitively without the `u` flag, where an ASCII letter matches only an ASCII letter, so bytes
// read as latin1 (stage 1 on git's raw output) find what the decoded text would.

import { KeywordAutomaton } from "./keyword-automaton.js";

/** What the prefilter needs of a detector (the rules pack's spec, or the hook bundle's copy of it). */
export interface PrefilterSpec {
  keywords?: readonly string[] | undefined;
  gate?: string | undefined;
  /** A regex source that must match where the keyword starts (sticky), with `flags`. */
  assignment?: string | undefined;
  flags?: string | undefined;
  file_context?: readonly string[] | undefined;
  block_end?: string | undefined;
}

/** A private key block longer than this many lines is cut (real keys are < 60 lines): a header keeps as many after it. */
export const BLOCK_MAX_LINES = 200;

/** Stage 1's grade of a hit: 1 a line may hold a match; 2 it may open a block (a private key) read on over later lines. */
export type HitGrade = 1 | 2;

interface Literal {
  /** Detectors (by index) whose keyword this is. */
  detectors: number[];
  /** Per detector, in step: the shape its keyword must start (null: none). */
  assigned: (RegExp | null)[];
  grade: HitGrade;
}

/** A keyword found inside a longer one that matched: it matched too, `offset` characters in. */
interface Inner {
  word: string;
  offset: number;
  literal: Literal;
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

/** The words as one regex of nested alternatives, by common prefix (the engine then tests few per position). */
function trieSource(words: readonly string[]): string {
  interface Node {
    end: boolean;
    kids: Map<string, Node>;
  }
  const root: Node = { end: false, kids: new Map() };
  for (const w of words) {
    let n = root;
    for (const ch of w) {
      let kid = n.kids.get(ch);
      if (!kid) {
        kid = { end: false, kids: new Map() };
        n.kids.set(ch, kid);
      }
      n = kid;
    }
    n.end = true;
  }
  const emit = (n: Node): string => {
    const alts = [...n.kids].sort(([a], [b]) => (a < b ? -1 : 1)).map(([ch, kid]) => escape(ch) + emit(kid));
    if (alts.length === 0) return "";
    const body = alts.length === 1 ? (alts[0] as string) : `(?:${alts.join("|")})`;
    // A word that ends here while longer ones go on: the longer tried first, this one as the fallback.
    return n.end ? `(?:${body})?` : body;
  };
  return emit(root);
}

/**
 * Characters a prefilter sweeps with its regex before it builds the automaton: the regex takes 6–13 ms
 * per MB, building the automaton 1–5 ms (cold), so a hook's staged lines never pay for it and an
 * audit's log does after its first commits.
 */
const AUTOMATON_AFTER = 256 * 1024;

/** Gate hits (grade 1) before `at` handed on first, so hits stay in order. */
function flush(gates: number[], at: number, hit: (at: number, grade: HitGrade) => void): void {
  let k = 0;
  while (k < gates.length && (gates[k] as number) < at) hit(gates[k++] as number, 1);
  if (k > 0) gates.splice(0, k);
}

function merged(gates: number[], hit: (at: number, grade: HitGrade) => void): (at: number, grade: HitGrade) => void {
  return (at, grade) => {
    if (gates.length > 0 && (gates[0] as number) < at) flush(gates, at, hit);
    hit(at, grade);
  };
}

export class Prefilter {
  private readonly literals = new Map<string, Literal>();
  /** Per matched literal: every literal inside it (itself included), so one match stands for all. */
  private readonly inner = new Map<string, Inner[]>();
  private readonly gates: { detector: number; re: RegExp }[] = [];
  /** Stage 2's one regex: literals (the trie), then each gate. */
  private readonly combined: RegExp;
  /**
   * Stage 1 over much text (an audit's log, a big file): the literals as a dense automaton
   * (./keyword-automaton.ts), built once AUTOMATON_AFTER characters have been swept, and the gates as
   * one regex (null: none). Before that, `combined` (the hook's few staged lines: building the
   * automaton costs 1–5 ms, the regex over them less).
   */
  private automaton: KeywordAutomaton | null = null;
  private readonly grades = new Map<string, HitGrade>();
  private readonly gateSweep: RegExp | null;
  private swept = 0;
  private readonly automatonAfter: number;
  /** Lines a block detector's header keeps after it (its body). */
  readonly tail = BLOCK_MAX_LINES;

  /**
   * `also`: words that keep a line in stage 1 without running a detector on their own (a line that
   * may hide a credential in base64, read decoded: src/secrets/units.ts).
   */
  constructor(specs: readonly PrefilterSpec[], also: readonly string[] = [], opts: { automatonAfter?: number } = {}) {
    this.automatonAfter = opts.automatonAfter ?? AUTOMATON_AFTER;
    for (const w of also) this.literal(w);
    specs.forEach((d, i) => {
      const grade: HitGrade = d.block_end !== undefined ? 2 : 1;
      // Sticky: tried exactly where a keyword starts. test/secrets/prefilter.test.ts holds every match
      // of the detector's regex to it.
      const assigned = d.assignment === undefined ? null : new RegExp(d.assignment, `y${d.flags ?? ""}`);
      for (const k of d.keywords ?? []) {
        const lit = this.literal(k);
        lit.detectors.push(i);
        lit.assigned.push(assigned);
        if (grade === 2) lit.grade = 2;
      }
      // A context word is kept like a keyword (it decides whether its detector runs on the file) but
      // runs no detector on its own line.
      for (const c of d.file_context ?? []) this.literal(c);
      if (d.gate !== undefined) this.gates.push({ detector: i, re: new RegExp(d.gate, "i") });
    });
    const words = [...this.literals.keys()];
    const alternatives = [...(words.length > 0 ? [trieSource(words)] : []), ...this.gates.map((g) => `(?:${g.re.source})`)];
    // No alternative can never match (a regex of none would match everywhere).
    this.combined = new RegExp(alternatives.length > 0 ? alternatives.join("|") : "(?!)", "gi");
    const grades = this.grades;
    for (const [w, l] of this.literals) grades.set(w.toLowerCase(), Math.max(grades.get(w.toLowerCase()) ?? 1, l.grade) as HitGrade);
    this.gateSweep = this.gates.length > 0 ? new RegExp(this.gates.map((g) => `(?:${g.re.source})`).join("|"), "gi") : null;
  }

  /** The literals inside one that matched (itself included), worked out on its first match: most never match. */
  private innerOf(word: string): readonly Inner[] {
    let inside = this.inner.get(word);
    if (!inside) {
      inside = [];
      for (const [other, literal] of this.literals) {
        for (let at = word.indexOf(other); at >= 0; at = word.indexOf(other, at + 1)) inside.push({ word: other, offset: at, literal });
      }
      this.inner.set(word, inside);
    }
    return inside;
  }

  private literal(word: string): Literal {
    let lit = this.literals.get(word);
    if (!lit) {
      lit = { detectors: [], assigned: [], grade: 1 };
      this.literals.set(word, lit);
    }
    return lit;
  }

  /**
   * Stage 1, over a chunk of whole lines: `hit(at, grade)` for places in text[from, to) where a line
   * may matter, in order (at: an index into text, inside the keyword or gate match; grade 2 where a
   * block keyword is). Neither a keyword nor a gate holds a line break, so a hit names its line.
   * Bytes read as latin1 give the same places as the decoded text (see the top of this file).
   */
  sweep(text: string, from: number, to: number, hit: (at: number, grade: HitGrade) => void): void {
    const automaton = this.automatonFor(to - from);
    if (automaton === null) {
      this.regexSweep(text, from, to, hit);
      return;
    }
    const gates = this.gateHits(text, from, to);
    if (gates.length === 0) automaton.scanText(text, from, to, hit);
    else automaton.scanText(text, from, to, merged(gates, hit));
    flush(gates, Number.POSITIVE_INFINITY, hit);
  }

  /** The same sweep over bytes as git printed them (no string is made for the keywords). */
  sweepBytes(b: Buffer, from: number, to: number, hit: (at: number, grade: HitGrade) => void): void {
    const automaton = this.automatonFor(to - from);
    if (automaton === null) {
      const text = b.toString("latin1", from, to);
      this.regexSweep(text, 0, text.length, (at, grade) => hit(from + at, grade));
      return;
    }
    const gates = this.gateSweep === null ? [] : this.gateHits(b.toString("latin1", from, to), 0, to - from, from);
    if (gates.length === 0) automaton.scanBytes(b, from, to, hit);
    else automaton.scanBytes(b, from, to, merged(gates, hit));
    flush(gates, Number.POSITIVE_INFINITY, hit);
  }

  /** The automaton once this prefilter has swept enough text to repay building it (null: not yet). */
  private automatonFor(length: number): KeywordAutomaton | null {
    if (this.automaton === null) {
      this.swept += length;
      if (this.swept < this.automatonAfter) return null;
      this.automaton = new KeywordAutomaton(this.grades);
    }
    return this.automaton;
  }

  /** Stage 1 by the combined regex: every place one of its alternatives matches (re-run one past each). */
  private regexSweep(text: string, from: number, to: number, hit: (at: number, grade: HitGrade) => void): void {
    const re = this.combined;
    re.lastIndex = from;
    for (let m = re.exec(text); m !== null && m.index < to; m = re.exec(text)) {
      const lit = this.literals.get(m[0].toLowerCase());
      let grade: HitGrade = lit?.grade ?? 1;
      // A block keyword inside the longer one that matched still opens its block.
      if (lit && grade === 1) for (const x of this.innerOf(m[0].toLowerCase())) if (x.literal.grade === 2) grade = 2;
      hit(m.index, grade);
      re.lastIndex = m.index + 1;
    }
  }

  /** Where a gate matches in text[from, to) (plus `shift`), ascending: every start, as the trie's regex ran. */
  private gateHits(text: string, from: number, to: number, shift = 0): number[] {
    const re = this.gateSweep;
    const out: number[] = [];
    if (re === null) return out;
    re.lastIndex = from;
    for (let m = re.exec(text); m !== null && m.index < to; m = re.exec(text)) {
      out.push(m.index + shift);
      re.lastIndex = m.index + 1;
    }
    return out;
  }

  /** Stage 1 over `count` lines joined (from `text(i)`): the indexes of those with a hit, ascending. */
  candidates(count: number, text: (i: number) => string): number[] {
    const starts: number[] = [];
    const parts: string[] = [];
    let at = 0;
    for (let i = 0; i < count; i++) {
      const t = text(i);
      starts.push(at);
      parts.push(t);
      at += t.length + 1;
    }
    const out: number[] = [];
    let line = 0;
    this.sweep(parts.join("\n"), 0, at, (hit) => {
      while (line + 1 < count && (starts[line + 1] as number) <= hit) line++;
      if (out[out.length - 1] !== line) out.push(line);
    });
    return out;
  }

  /** Whether a line may matter at all (stage 1 on one line). */
  any(line: string): boolean {
    this.combined.lastIndex = 0;
    return this.combined.test(line);
  }

  /** Stage 2: the indexes of the detectors that may match on this line, ascending. */
  detectorsOn(line: string): number[] {
    const on = new Set<number>();
    const re = this.combined;
    let seen = false;
    re.lastIndex = 0;
    for (let m = re.exec(line); m !== null; m = re.exec(line)) {
      seen = true;
      const matched = m[0].toLowerCase();
      for (const x of this.literals.has(matched) ? this.innerOf(matched) : []) {
        const { detectors, assigned } = x.literal;
        for (let k = 0; k < detectors.length; k++) {
          const d = detectors[k] as number;
          if (on.has(d)) continue;
          const shape = assigned[k];
          if (shape) {
            shape.lastIndex = m.index + x.offset;
            if (!shape.test(line)) continue;
          }
          on.add(d);
        }
      }
      re.lastIndex = m.index + 1;
    }
    // A gate's match may sit where a literal matched first (of alternatives at one place the first
    // wins), so each gate is asked on its own; a line without any hit cannot match one.
    if (seen) for (const g of this.gates) if (g.re.test(line)) on.add(g.detector);
    return [...on].sort((a, b) => a - b);
  }
}
