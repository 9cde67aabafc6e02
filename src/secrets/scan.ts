// Runs the detectors over numbered lines. Linear in the input: a line is lowercased once and each
// detector's regex runs only when one of its keywords is present; after a match the scan resumes
// past the value's whole run, so no character is expanded over twice by one detector, and no value
// is longer than its family's maximum.
import type { Detector, DetectorSet } from "../rules/detectors.js";
import { meetsEntropyFloor } from "./entropy.js";
import { referenceKind } from "./references.js";
import { readsAsRandom } from "./words.js";
import { jwtHeaderOk } from "./jwt.js";
import { continuedUnit, DECODE_HINT, decodedUnits, lineUnit, unescapedUnit, type ScanUnit } from "./units.js";
import type { LineSieve } from "../git/types.js";

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

/** A private key block longer than this many lines is cut (real keys are < 60 lines). */
const BLOCK_MAX_LINES = 200;
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

/** Detectors that may run on these lines: a file-context detector only where its context appears. */
function activeDetectors(lines: readonly NumberedLine[], set: DetectorSet): Detector[] {
  let lowered: string[] | null = null;
  return set.detectors.filter((d) => {
    if (!d.fileContext) return true;
    lowered ??= lines.map((l) => l.text.toLowerCase());
    const all = lowered;
    return d.fileContext.some((c) => all.some((t) => t.includes(c)));
  });
}

/** Every detector keyword, once (lowercase): a line holding none of them cannot hold a secret. */
function secretKeywords(set: DetectorSet): string[] {
  return [...new Set(set.detectors.flatMap((d) => d.keywords))].sort();
}

const prefilters = new WeakMap<DetectorSet, RegExp>();

/**
 * One case-insensitive alternation of every keyword: one test per line instead of one `includes`
 * per detector, so a line without any keyword (nearly all of a history) costs one regex run.
 */
function keywordPrefilter(set: DetectorSet): RegExp {
  let re = prefilters.get(set);
  if (!re) {
    re = new RegExp(
      secretKeywords(set)
        .map((k) => k.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
        .join("|"),
      "i",
    );
    prefilters.set(set, re);
  }
  return re;
}

const sieves = new WeakMap<DetectorSet, LineSieve | null>();

/** ASCII lowercasing of a byte; a byte outside ASCII reads as 0, which no keyword holds. */
const LOWER = Uint8Array.from({ length: 256 }, (_, b) => (b >= 65 && b <= 90 ? b + 32 : b < 128 ? b : 0));

/**
 * The keyword prefilter on a line's raw bytes, for streamed files: a line holding no keyword (ASCII
 * case folded, as keywordPrefilter's regex does) is not even decoded. Exact for ASCII keywords (a
 * case-insensitive regex matches an ASCII character only to ASCII); null when a keyword is not ASCII
 * or holds a NUL (every line is read then). A line holding a block detector's keyword (a private key
 * header) also keeps the lines the block may run into.
 */
export function keywordSieve(set: DetectorSet): LineSieve | null {
  let sieve = sieves.get(set);
  if (sieve === undefined) {
    sieve = buildSieve(set);
    sieves.set(set, sieve);
  }
  return sieve;
}

/** Slots three-character keyword starts are hashed into (a false hit costs one comparison). */
const TRIPLE_BITS = 14;

function tripleSlot(code: number): number {
  return Math.imul(code, 0x9e3779b1) >>> (32 - TRIPLE_BITS);
}

interface SieveWord {
  /** The keyword's ASCII codes, lowercase. */
  codes: Uint8Array;
  /** 1: a keyword; 2: a block detector's (the lines after it are kept too). */
  mark: number;
}

function buildSieve(set: DetectorSet): LineSieve | null {
  // Keywords by their lowercase ASCII codes (7 bits each): one character, two, or listed by a hash of
  // their first three. `hot` marks, by two raw bytes side by side (either case), where a keyword may
  // end (one character) or start (longer): a byte costs one table read unless it is marked there.
  const singles = new Uint8Array(1 << 7);
  const pairs = new Uint8Array(1 << 14);
  const byTriple: SieveWord[][] = Array.from({ length: 1 << TRIPLE_BITS }, () => []);
  const hot = new Uint8Array(1 << 16);
  const cases = (c: number): number[] => (c >= 97 && c <= 122 ? [c, c - 32] : [c]);
  for (const d of set.detectors) {
    const mark = d.blockEnd === null ? 1 : 2;
    for (const k of d.keywords) {
      const codes = Uint8Array.from([...k].map((ch) => ch.charCodeAt(0)));
      if (codes.length === 0 || codes.some((c) => c === 0 || c > 127)) return null;
      codes.forEach((c, i) => (codes[i] = LOWER[c] as number));
      const [a = 0, b = 0, c = 0] = codes;
      if (codes.length === 1) {
        singles[a] = Math.max(singles[a] as number, mark);
        for (let prev = 0; prev < 256; prev++) for (const x of cases(a)) hot[(prev << 8) | x] = 1;
        continue;
      }
      for (const x of cases(a)) for (const y of cases(b)) hot[(x << 8) | y] = 1;
      if (codes.length === 2) {
        pairs[(a << 7) | b] = Math.max(pairs[(a << 7) | b] as number, mark);
        continue;
      }
      byTriple[tripleSlot((a << 14) | (b << 7) | c)]?.push({ codes, mark });
    }
  }
  return {
    tail: BLOCK_MAX_LINES,
    grade(bytes, start, end) {
      let found = 0;
      // The byte before (0 before the line starts, which no keyword holds).
      let prev = 0;
      for (let i = start; i < end; i++) {
        const c = bytes[i] as number;
        const two = (prev << 8) | c;
        prev = c;
        if (hot[two] === 0) continue;
        const low = LOWER[c] as number;
        const pair = ((LOWER[two >> 8] as number) << 7) | low;
        found |= (singles[low] as number) | (pairs[pair] as number);
        // A keyword of three or more characters may start at i - 1.
        if (i + 1 < end) {
          const words = byTriple[tripleSlot((pair << 7) | (LOWER[bytes[i + 1] as number] as number))] as SieveWord[];
          for (let k = 0; k < words.length; k++) {
            const w = words[k] as SieveWord;
            if ((found & w.mark) === 0 && wordAt(bytes, i - 1, end, w.codes)) found |= w.mark;
          }
        }
        if (found >= 2) return 2;
      }
      return found === 0 ? 0 : 1;
    },
  };
}

/** Whether `bytes` holds the lowercase ASCII `codes` at `at` (ASCII letters in either case), before `end`. */
function wordAt(bytes: Uint8Array, at: number, end: number, codes: Uint8Array): boolean {
  if (at + codes.length > end) return false;
  for (let j = 2; j < codes.length; j++) if (LOWER[bytes[at + j] as number] !== codes[j]) return false;
  return true;
}

/**
 * The detectors' matches on numbered lines. A line is also read joined to the line before it when
 * that line is among them too (the hook's fast path sees the same lines, src/cli/fast-path.ts).
 */
export function scanLines(lines: readonly NumberedLine[], set: DetectorSet): SecretMatch[] {
  // Lines without a keyword (most of a history's) find nothing: the detectors are not even chosen.
  // A pull secret's base64 holds its keywords only once decoded.
  const prefilter = keywordPrefilter(set);
  if (!lines.some((l) => prefilter.test(l.text) || DECODE_HINT.test(l.text))) return [];
  return scanSome(lines, lines.length, activeDetectors(lines, set), set);
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
      yield* scanSome(buf, settled, set.detectors, set);
      buf = buf.slice(settled);
      bytes = buf.reduce((n, x) => n + x.text.length, 0);
    }
  }
  yield* scanSome(buf, buf.length, set.detectors, set);
}

/** Matches starting in the first `upto` lines (a block may read on into the lines after them). */
function scanSome(lines: readonly NumberedLine[], upto: number, detectors: readonly Detector[], set: DetectorSet): SecretMatch[] {
  const out: SecretMatch[] = [];
  const prefilter = keywordPrefilter(set);
  let lastHit = false;
  for (let i = 0; i < upto; i++) {
    const cur = lines[i];
    if (!cur) continue;
    const { text } = cur;
    const hit = prefilter.test(text);
    // The line before, when it is scanned too and holds a keyword: it may open a value this line holds.
    const prev = i > 0 && lastHit && lines[i - 1]?.line === cur.line - 1 ? lines[i - 1] : undefined;
    lastHit = hit;
    const joined = prev ? continuedUnit(prev.text, text) : null;
    const decoded = hit || text.includes("docker") ? decodedUnits(text) : [];
    const extra: ScanUnit[] = joined ? [joined, ...decoded] : decoded;
    if (!hit && extra.length === 0) continue;
    const found: SecretMatch[] = hit ? scanUnit(unescapedUnit(text) ?? lineUnit(text), cur, lines, i, detectors, set) : [];
    for (const u of extra) {
      // A joined reading adds only a name: the detectors it gives a keyword to are the ones it can help.
      const prefix = u.prefix?.toLowerCase();
      const ds = prefix === undefined ? detectors : detectors.filter((d) => d.keywords.some((k) => prefix.includes(k)));
      if (ds.length > 0 && prefilter.test(u.text)) found.push(...scanUnit(u, cur, lines, i, ds, set));
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

/** The detectors over one reading of line `i`; private key blocks only on the line as written. */
function scanUnit(
  unit: ScanUnit,
  cur: NumberedLine,
  lines: readonly NumberedLine[],
  i: number,
  detectors: readonly Detector[],
  set: DetectorSet,
): SecretMatch[] {
  const text = unit.text;
  const lower = text.toLowerCase();
  const claimed: [number, number][] = [];
  const found: SecretMatch[] = [];
  const report = (d: Detector, value: string, offset: number): void => {
    const column = unit.column(offset);
    if (column < 0) return;
    found.push({ detector: d, value, line: cur.line, column: column + 1, ...(unit.via ? { via: unit.via } : {}) });
  };
  for (const d of detectors) {
    if (!d.keywords.some((k) => lower.includes(k))) continue;
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
