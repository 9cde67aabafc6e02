// Runs the detectors over numbered lines. Linear in the input: one sweep of the prefilter over all the
// lines finds those that may matter, and on each of them only the detectors whose keyword (or gate)
// is there run their regex (./prefilter.ts); after a match the scan resumes
// past the value's whole run, so no character is expanded over twice by one detector, and no value
// is longer than its family's maximum.
import type { Detector, DetectorSet } from "../rules/detectors.js";
import { meetsEntropyFloor } from "./entropy.js";
import { referenceKind } from "./references.js";
import type { LineSieve } from "../git/types.js";
import { BLOCK_MAX_LINES, Prefilter, type PrefilterSpec } from "./prefilter.js";

export interface NumberedLine {
  line: number;
  text: string;
}

export interface SecretMatch {
  detector: Detector;
  /** The whole value (the run of the detector's character set), the thing placeholders are compared to. */
  value: string;
  line: number;
  /** 1-based column where the value (or a private key's header) starts. */
  column: number;
}

/** How far back a generic match's key name is read (`SERVICE_API_KEY_PROD`, `mySecretString`). */
const NAME_MAX = 64;

function inSet(table: Uint8Array, code: number): boolean {
  return code < 128 && table[code] === 1;
}

function isNameChar(code: number): boolean {
  return (
    (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code === 45 || code === 46
  );
}

/** The whole key name a generic match's keyword sits in: walked back from the keyword, forward in the match. */
function keyName(text: string, m: RegExpExecArray): string {
  let s = m.index;
  while (s > 0 && m.index - s < NAME_MAX && isNameChar(text.charCodeAt(s - 1))) s--;
  let e = m.index;
  while (e < text.length && e - m.index < NAME_MAX && isNameChar(text.charCodeAt(e))) e++;
  return text.slice(s, e).toLowerCase();
}

function accepts(d: Detector, value: string): boolean {
  if (value.length < d.minLength) return false;
  if (d.shape && !d.shape.test(value)) return false;
  if (d.entropy !== null && !meetsEntropyFloor(value, d.entropy, d.generic)) return false;
  return !d.ignore.some((re) => re.test(value));
}

/** The body of a private key block starting after `from` on line `i`, over the following lines. */
function blockBody(d: Detector, lines: readonly NumberedLine[], i: number, from: number): { body: string; resumeAt: number } {
  const end = d.blockEnd ?? "";
  let body = "";
  let resumeAt = Number.POSITIVE_INFINITY;
  for (let j = i, k = 0; j < lines.length && k < BLOCK_MAX_LINES; j++, k++) {
    const cur = lines[j];
    if (!cur) break;
    if (j > i && cur.line !== (lines[j - 1]?.line ?? 0) + 1) break;
    const start = j === i ? from : 0;
    // Another block begins before this one ended: the header was only text (a parser's string
    // constant, a doc line), not a key.
    if (j > i && cur.text.includes("-----BEGIN")) return { body: "", resumeAt };
    const stop = cur.text.indexOf(end, start);
    body += cur.text.slice(start, stop >= 0 ? stop : cur.text.length);
    if (stop >= 0) {
      if (j === i) resumeAt = stop;
      break;
    }
  }
  // JSON keeps a key on one line with literal \n escapes; they are not part of the key.
  let clean = "";
  for (const ch of body.replace(/\\n/g, "")) if (inSet(d.charset, ch.charCodeAt(0))) clean += ch;
  return { body: clean, resumeAt };
}

/** Detectors that may run on these lines: a file-context detector only where its context appears. */
function activeDetectors(lines: readonly NumberedLine[], at: readonly number[], set: DetectorSet): Set<Detector> {
  let lowered: string[] | null = null;
  return new Set(
    set.detectors.filter((d) => {
      if (!d.fileContext) return true;
      // A context word is a prefilter word: only the lines it kept can hold one.
      lowered ??= at.map((i) => (lines[i] as NumberedLine).text.toLowerCase());
      const all = lowered;
      return d.fileContext.some((c) => all.some((t) => t.includes(c)));
    }),
  );
}

const prefilters = new WeakMap<DetectorSet, Prefilter>();

/** The set's prefilter (src/secrets/prefilter.ts), built once. */
export function prefilterOf(set: DetectorSet): Prefilter {
  let p = prefilters.get(set);
  if (!p) {
    p = new Prefilter(set.detectors.map(prefilterSpec));
    prefilters.set(set, p);
  }
  return p;
}

function prefilterSpec(d: Detector): PrefilterSpec {
  return {
    keywords: d.keywords,
    gate: d.gate ?? undefined,
    assignment: d.assignment,
    file_context: d.fileContext ?? undefined,
    block_end: d.blockEnd ?? undefined,
  };
}

const sieves = new WeakMap<DetectorSet, LineSieve>();

/**
 * The prefilter's first stage on raw bytes, for streamed files: the bytes of a chunk of whole lines,
 * read as latin1 (exact for the ASCII words and gates, see prefilter.ts), in one sweep; a line
 * without a hit is not even decoded. A block detector's header also keeps the lines after it.
 */
export function keywordSieve(set: DetectorSet): LineSieve {
  let sieve = sieves.get(set);
  if (!sieve) {
    const p = prefilterOf(set);
    sieve = {
      tail: p.tail,
      sweep(bytes, start, end, hit) {
        const text = bytes.toString("latin1", start, end);
        p.sweep(text, 0, text.length, (at, grade) => hit(start + at, grade));
      },
    };
    sieves.set(set, sieve);
  }
  return sieve;
}

/** Stage 1 over lines[0, upto) joined: the indexes of the lines it kept, ascending. */
function candidateLines(lines: readonly NumberedLine[], upto: number, p: Prefilter): number[] {
  return p.candidates(upto, (i) => (lines[i] as NumberedLine).text);
}

export function scanLines(lines: readonly NumberedLine[], set: DetectorSet): SecretMatch[] {
  // Lines without a hit (most of a history's) find nothing: the detectors are not even chosen.
  const p = prefilterOf(set);
  const at = candidateLines(lines, lines.length, p);
  if (at.length === 0) return [];
  return scanSome(lines, at, activeDetectors(lines, at, set), set);
}

/** Lines buffered by scanStream before a scan (and at most this many bytes of them). */
const STREAM_LINES = 4096;
const STREAM_BYTES = 1024 * 1024;

/**
 * The scan of a stream of lines, in windows: memory is a window plus the lines a private key block
 * may still run into. A window's last BLOCK_MAX_LINES lines are carried into the next one, so a block
 * that starts near a window's end is read whole; a match is reported by the window it starts in.
 * Every detector runs (a file-context detector's context may come later in the stream than its key).
 */
export function* scanStream(lines: Iterable<NumberedLine>, set: DetectorSet): Generator<SecretMatch> {
  let buf: NumberedLine[] = [];
  let bytes = 0;
  for (const l of lines) {
    buf.push(l);
    bytes += l.text.length;
    if (buf.length >= STREAM_LINES + BLOCK_MAX_LINES || (bytes > STREAM_BYTES && buf.length > BLOCK_MAX_LINES)) {
      const settled = buf.length - BLOCK_MAX_LINES;
      yield* scanSome(buf, candidateLines(buf, settled, prefilterOf(set)), null, set);
      buf = buf.slice(settled);
      bytes = buf.reduce((n, x) => n + x.text.length, 0);
    }
  }
  yield* scanSome(buf, candidateLines(buf, buf.length, prefilterOf(set)), null, set);
}

/**
 * Matches on the lines at these indexes (a block may read on into the lines after them), by the
 * detectors the prefilter's second stage names for each line (of `allowed`, null: any).
 */
function scanSome(
  lines: readonly NumberedLine[],
  at: readonly number[],
  allowed: ReadonlySet<Detector> | null,
  set: DetectorSet,
): SecretMatch[] {
  const out: SecretMatch[] = [];
  const p = prefilterOf(set);
  for (const i of at) {
    const cur = lines[i];
    if (!cur) continue;
    const { text } = cur;
    const claimed: [number, number][] = [];
    const found: SecretMatch[] = [];
    for (const k of p.detectorsOn(text)) {
      const d = set.detectors[k] as Detector;
      if (allowed && !allowed.has(d)) continue;
      const re = d.regex;
      re.lastIndex = 0;
      let m: RegExpExecArray | null;
      while ((m = re.exec(text)) !== null) {
        const matchStart = m.index;
        const matchEnd = matchStart + m[0].length;
        if (d.blockEnd !== null) {
          const { body, resumeAt } = blockBody(d, lines, i, matchEnd);
          re.lastIndex = Number.isFinite(resumeAt) ? Math.max(resumeAt, matchEnd) : text.length;
          if (accepts(d, body) && !claimed.some(([a, b]) => matchStart < b && a < matchEnd)) {
            claimed.push([matchStart, matchEnd]);
            found.push({ detector: d, value: body, line: cur.line, column: m.index + 1 });
          }
          continue;
        }
        const span = m.indices?.groups?.["value"] ?? m.indices?.[0] ?? [m.index, matchEnd];
        const [s] = span;
        let [, e] = span;
        // The value runs on to the end of the detector's character set, so a placeholder is judged
        // whole (AKIA0000000000000EXAMPLE as 24 characters). It never grows to the left: the regex's
        // left boundary decides where a key starts (after `%3D`, `\u003d` or `key`, where glued).
        const limit = Math.min(text.length, s + d.maxLength + 1);
        while (e < limit && inSet(d.charset, text.charCodeAt(e))) e++;
        if (e - s > d.maxLength) {
          // Longer than the family's format allows: not this token. Skip the whole run.
          while (e < text.length && inSet(d.charset, text.charCodeAt(e))) e++;
          re.lastIndex = Math.max(e, m.index + 1);
          continue;
        }
        re.lastIndex = Math.max(e, m.index + 1);
        const value = text.slice(s, e);
        if (!accepts(d, value)) continue;
        if (d.nameIgnore.length > 0) {
          const name = keyName(text, m);
          if (d.nameIgnore.some((re) => re.test(name))) continue;
        }
        const ref = referenceKind(text, s, e, set.references);
        // A lookup's terms name a vault path (`secret=kv/app`), so the generic name=value reading does
        // not apply inside them; a key of a specific format there is still a key.
        if (ref === "name" || (ref === "lookup-arg" && d.generic)) continue;
        if (claimed.some(([a, b]) => s < b && a < e)) continue;
        claimed.push([s, e]);
        found.push({ detector: d, value, line: cur.line, column: s + 1 });
      }
    }
    found.sort((a, b) => a.column - b.column);
    out.push(...found);
  }
  return out;
}

/** Every line of a text as a numbered line (for `--all` and tests). */
export function numberLines(text: string): NumberedLine[] {
  return text.split("\n").map((t, k) => ({ line: k + 1, text: t.endsWith("\r") ? t.slice(0, -1) : t }));
}
