// Runs the detectors over numbered lines. Linear in the input: one sweep of the prefilter over all the
// lines finds those that may matter, and on each of them only the detectors whose keyword (or gate)
// is there run their regex (./prefilter.ts); after a match the scan resumes
// past the value's whole run, so no character is expanded over twice by one detector, and no value
// is longer than its family's maximum.
import type { Detector, DetectorSet } from "../rules/detectors.js";
import { meetsEntropyFloor } from "./entropy.js";
import { referenceKind } from "./references.js";
import { readsAsRandom } from "./words.js";
import { jwtHeaderOk } from "./jwt.js";
import { continuedUnit, DECODE_WORDS, decodedUnits, lineUnit, unescapedUnit, type ScanUnit } from "./units.js";
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
  /** How the value was read when not as the line stands (joined to the line before, decoded). */
  via?: string;
}

/** How far back a generic match's key name is read (`SERVICE_API_KEY_PROD`, `mySecretString`). */
const NAME_MAX = 64;
/** The longest placeholder-with-glued-characters run reported (the whole run is one value). */
const MAX_GLUED = 4096;

function inSet(table: Uint8Array, code: number): boolean {
  return code < 128 && table[code] === 1;
}

function isNameChar(code: number): boolean {
  return (
    (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code === 45 || code === 46
  );
}

/**
 * The whole key name a generic match's keyword sits in: walked back from the keyword, forward in the
 * match; camelCase split at its capitals and lowercased (credentialsId is credentials_id).
 */
function keyName(text: string, m: RegExpExecArray): string {
  let s = m.index;
  while (s > 0 && m.index - s < NAME_MAX && isNameChar(text.charCodeAt(s - 1))) s--;
  let e = m.index;
  while (e < text.length && e - m.index < NAME_MAX && isNameChar(text.charCodeAt(e))) e++;
  return text
    .slice(s, e)
    .replace(/([a-z0-9])(?=[A-Z])/g, "$1_")
    .toLowerCase();
}

/** `matched`: how much of the value the regex matched (the rest is the run it was extended by). */
function accepts(d: Detector, value: string, set: DetectorSet, matched = value.length): boolean {
  if (value.length < d.minLength || (d.shape && !d.shape.test(value))) {
    // A listed example the format check rejects (AKIA0000000000000EXAMPLE is not base32) is still
    // reported, as exempt: a listed placeholder is never dropped silently; nor is one with key
    // characters glued on (AKIAIOSFODNN7EXAMPLEQ3), which is not inert.
    return set.placeholders.values.includes(value) || gluedPlaceholder(value, matched, d, set);
  }
  if (d.entropy !== null && !meetsEntropyFloor(value, d.entropy, d.generic)) return false;
  if (d.check === "jwt" && !jwtHeaderOk(value)) return false;
  if (d.ignore.some((re) => re.test(value))) return false;
  return !d.wordIgnore.some((re) => re.test(value)) || readsAsRandom(value);
}

/**
 * Whether a run longer than its format begins with a listed placeholder: a placeholder with key
 * characters glued on is not inert (a longer run that holds one is not exempt), so it is reported
 * instead of being passed over as "not this format".
 */
function gluedPlaceholder(run: string, matched: number, d: Detector, set: DetectorSet): boolean {
  const filter = builtinPlaceholders(set);
  if (filter.some((re) => re.test(run))) return false;
  if (set.placeholders.values.some((v) => run.length > v.length && run.startsWith(v))) return true;
  return [matched, d.maxLength].some((n) => n < run.length && filter.some((re) => re.test(run.slice(0, n))));
}

const builtinFilters = new WeakMap<DetectorSet, RegExp[]>();

function builtinPlaceholders(set: DetectorSet): RegExp[] {
  let res = builtinFilters.get(set);
  if (!res) {
    res = set.placeholders.patterns.map((p) => new RegExp(`^(?:${p})$`));
    builtinFilters.set(set, res);
  }
  return res;
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

/** Per set: the detectors that need no file context (most), as a set shared by every scan that finds no context word. */
const contextFree = new WeakMap<DetectorSet, { free: ReadonlySet<Detector>; context: readonly Detector[] }>();

/** Detectors that may run on these lines: a file-context detector only where its context appears. */
function activeDetectors(lines: readonly NumberedLine[], at: readonly number[], set: DetectorSet): ReadonlySet<Detector> {
  let split = contextFree.get(set);
  if (!split) {
    split = { free: new Set(set.detectors.filter((d) => !d.fileContext)), context: set.detectors.filter((d) => d.fileContext) };
    contextFree.set(set, split);
  }
  if (split.context.length === 0) return split.free;
  // A context word is a prefilter word: only the lines it kept can hold one.
  const lowered = at.map((i) => (lines[i] as NumberedLine).text.toLowerCase());
  const named = split.context.filter((d) => d.fileContext?.some((c) => lowered.some((t) => t.includes(c))));
  if (named.length === 0) return split.free;
  return new Set(set.detectors.filter((d) => !d.fileContext || named.includes(d)));
}

const prefilters = new WeakMap<DetectorSet, Prefilter>();
/**
 * Prefilters by what they are built from: the masker's set (src/secrets/mask.ts) is the scan's
 * detectors without their format checks, the same keywords, gates and shapes in the same order, so
 * one prefilter serves both (building its regex twice was 2 ms of a staged check).
 */
const bySpecs = new Map<string, Prefilter>();

/** The set's prefilter (src/secrets/prefilter.ts), built once. */
export function prefilterOf(set: DetectorSet): Prefilter {
  let p = prefilters.get(set);
  if (!p) {
    const specs = set.detectors.map(prefilterSpec);
    const key = JSON.stringify(specs);
    p = bySpecs.get(key);
    if (!p) {
      p = new Prefilter(specs, DECODE_WORDS);
      // A few sets a process (the pack's, the masker's, a policy's own patterns): a bound all the same.
      if (bySpecs.size >= 8) bySpecs.clear();
      bySpecs.set(key, p);
    }
    prefilters.set(set, p);
  }
  return p;
}

function prefilterSpec(d: Detector): PrefilterSpec {
  return {
    keywords: d.keywords,
    gate: d.gate ?? undefined,
    assignment: d.assignment ?? undefined,
    flags: d.regex.flags.includes("i") ? "i" : undefined,
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
      after: 1,
      sweep: (bytes, start, end, hit) => p.sweepBytes(bytes, start, end, hit),
    };
    sieves.set(set, sieve);
  }
  return sieve;
}

/** Stage 1 over lines[0, upto) joined: the indexes of the lines it kept, ascending. */
function candidateLines(lines: readonly NumberedLine[], upto: number, p: Prefilter): number[] {
  return p.candidates(upto, (i) => (lines[i] as NumberedLine).text);
}

/**
 * The detectors' matches on numbered lines. A line is also read joined to the line before it when
 * that line is among them too (the hook's fast path sees the same lines, src/cli/fast-path.ts).
 */
export function scanLines(lines: readonly NumberedLine[], set: DetectorSet): SecretMatch[] {
  // Lines without a hit (most of a history's) find nothing: the detectors are not even chosen. A pull
  // secret's base64 holds its keywords only once decoded: the prefilter keeps its line by DECODE_WORDS.
  const p = prefilterOf(set);
  const hits = candidateLines(lines, lines.length, p);
  if (hits.length === 0) return [];
  return scanSome(lines, hits, 0, lines.length, activeDetectors(lines, hits, set), set);
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
  const p = prefilterOf(set);
  let buf: NumberedLine[] = [];
  let bytes = 0;
  // The first line of a window after the first is the last one scanned before: kept so the line after
  // it can be read joined to it.
  let from = 0;
  for (const l of lines) {
    buf.push(l);
    bytes += l.text.length;
    if (buf.length >= STREAM_LINES + BLOCK_MAX_LINES || (bytes > STREAM_BYTES && buf.length > BLOCK_MAX_LINES)) {
      const settled = buf.length - BLOCK_MAX_LINES;
      yield* scanSome(buf, candidateLines(buf, settled, p), from, settled, null, set);
      buf = buf.slice(settled - 1);
      from = 1;
      bytes = buf.reduce((n, x) => n + x.text.length, 0);
    }
  }
  yield* scanSome(buf, candidateLines(buf, buf.length, p), from, buf.length, null, set);
}

/**
 * Matches on the lines of lines[from, upto) that had a stage-1 hit (`hits`, ascending, over the whole
 * window) or follow one (a value on the line after its name, read joined to it), by the detectors the
 * prefilter's second stage names for each reading (of `allowed`, null: any). A block may read on into
 * the lines after `upto`.
 */
function scanSome(
  lines: readonly NumberedLine[],
  hits: readonly number[],
  from: number,
  upto: number,
  allowed: ReadonlySet<Detector> | null,
  set: DetectorSet,
): SecretMatch[] {
  const out: SecretMatch[] = [];
  const p = prefilterOf(set);
  const hit = new Set(hits);
  const chosen = (text: string): Detector[] =>
    p
      .detectorsOn(text)
      .map((k) => set.detectors[k] as Detector)
      .filter((d) => !allowed || allowed.has(d));
  // Ascending: each hit, then the line after it.
  const order = [...new Set(hits.flatMap((i) => [i, i + 1]))].filter((i) => i >= from && i < upto);
  for (const i of order) {
    const cur = lines[i];
    if (!cur) continue;
    const { text } = cur;
    const onLine = hit.has(i);
    // The line before, when it had a hit too: it may open a value this line holds.
    const prev = hit.has(i - 1) && lines[i - 1]?.line === cur.line - 1 ? lines[i - 1] : undefined;
    const joined = prev ? continuedUnit(prev.text, text) : null;
    const decoded = onLine ? decodedUnits(text) : [];
    const unit = onLine ? (unescapedUnit(text) ?? lineUnit(text)) : null;
    const found: SecretMatch[] = unit ? scanUnit(unit, cur, lines, i, chosen(unit.text), set) : [];
    for (const u of joined ? [joined, ...decoded] : decoded) {
      // A joined reading adds only a name: the detectors it gives a keyword to are the ones it can help.
      const prefix = u.prefix?.toLowerCase();
      const ds = chosen(u.text).filter((d) => prefix === undefined || d.keywords.some((k) => prefix.includes(k)));
      if (ds.length > 0) found.push(...scanUnit(u, cur, lines, i, ds, set));
    }
    if (found.length > 0) out.push(...settle(found));
  }
  return out;
}

/**
 * One finding a value: the same value read two ways (a line and its joined or decoded reading) once,
 * and a generic finding gives way to a specific one at the same column (a docker `auth` blob is a
 * generic high-entropy value; the token decoded from it is a GitHub token).
 */
function settle(found: SecretMatch[]): SecretMatch[] {
  if (found.length < 2) return found;
  const specific = new Set(found.filter((f) => !f.detector.generic).map((f) => f.column));
  const seen = new Set<string>();
  return found
    .filter((f) => !(f.detector.generic && specific.has(f.column)))
    .filter((f) => {
      const key = `${f.column}\0${f.value}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .sort((a, b) => a.column - b.column);
}

/**
 * The detectors the prefilter chose over one reading of line `i`; private key blocks only on the line
 * as written.
 */
function scanUnit(
  unit: ScanUnit,
  cur: NumberedLine,
  lines: readonly NumberedLine[],
  i: number,
  detectors: readonly Detector[],
  set: DetectorSet,
): SecretMatch[] {
  const text = unit.text;
  const claimed: [number, number][] = [];
  const found: SecretMatch[] = [];
  const report = (d: Detector, value: string, offset: number): void => {
    const column = unit.column(offset);
    if (column < 0) return;
    found.push({ detector: d, value, line: cur.line, column: column + 1, ...(unit.via ? { via: unit.via } : {}) });
  };
  for (const d of detectors) {
    if (d.blockEnd !== null && unit.via !== null) continue;
    const re = d.regex;
    re.lastIndex = 0;
    let m: RegExpExecArray | null;
    while ((m = re.exec(text)) !== null) {
      const matchStart = m.index;
      const matchEnd = matchStart + m[0].length;
      if (d.blockEnd !== null) {
        const { body, resumeAt } = blockBody(d, lines, i, unit.column(matchEnd));
        re.lastIndex = Number.isFinite(resumeAt) ? Math.max(resumeAt, matchEnd) : text.length;
        if (accepts(d, body, set) && !claimed.some(([a, b]) => matchStart < b && a < matchEnd)) {
          claimed.push([matchStart, matchEnd]);
          report(d, body, matchStart);
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
        // Longer than the family's format allows: not this token, unless it is a placeholder with
        // key characters glued on. Skip the whole run.
        while (e < text.length && inSet(d.charset, text.charCodeAt(e))) e++;
        re.lastIndex = Math.max(e, m.index + 1);
        const run = text.slice(s, Math.min(e, s + MAX_GLUED));
        if (gluedPlaceholder(run, span[1] - s, d, set) && !claimed.some(([a, b]) => s < b && a < e)) {
          claimed.push([s, e]);
          report(d, run, s);
        }
        continue;
      }
      re.lastIndex = Math.max(e, m.index + 1);
      const value = text.slice(s, e);
      if (!accepts(d, value, set, span[1] - s)) continue;
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
      report(d, value, s);
    }
  }
  return found;
}

/** Every line of a text as a numbered line (for `--all` and tests). */
export function numberLines(text: string): NumberedLine[] {
  return text.split("\n").map((t, k) => ({ line: k + 1, text: t.endsWith("\r") ? t.slice(0, -1) : t }));
}
