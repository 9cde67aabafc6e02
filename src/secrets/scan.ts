// Runs the detectors over numbered lines. Linear in the input: a line is lowercased once and each
// detector's regex runs only when one of its keywords is present; after a match the scan resumes
// past the value's whole run, so no character is expanded over twice by one detector.
import type { Detector, DetectorSet } from "../rules/detectors.js";
import { shannonEntropy } from "./entropy.js";

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

/** How far around a value a reference's `${` / `{{` is looked for: references are short. */
const REFERENCE_WINDOW = 512;
/** A private key block longer than this many lines is cut (real keys are < 60 lines). */
const BLOCK_MAX_LINES = 200;

function inSet(table: Uint8Array, code: number): boolean {
  return code < 128 && table[code] === 1;
}

export function isReference(text: string, start: number, end: number, refs: DetectorSet["references"]): boolean {
  const lo = Math.max(0, start - REFERENCE_WINDOW);
  const before = text.slice(lo, start);
  for (const [open, close] of refs.enclosures) {
    const at = before.lastIndexOf(open);
    if (at < 0) continue;
    // An enclosure closed again before the value does not hold it.
    if (before.indexOf(close, at + open.length) >= 0) continue;
    const after = text.slice(end, end + REFERENCE_WINDOW);
    if (after.includes(close)) return true;
  }
  const lowerBefore = before.toLowerCase();
  const lowerValue = text.slice(start, Math.min(end, start + 32)).toLowerCase();
  return refs.prefixes.some((p) => lowerBefore.endsWith(p) || lowerValue.startsWith(p));
}

function accepts(d: Detector, value: string): boolean {
  if (value.length < d.minLength) return false;
  if (d.shape && !d.shape.test(value)) return false;
  if (d.entropy !== null && shannonEntropy(value) < d.entropy) return false;
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

export function scanLines(lines: readonly NumberedLine[], set: DetectorSet): SecretMatch[] {
  const out: SecretMatch[] = [];
  for (let i = 0; i < lines.length; i++) {
    const cur = lines[i];
    if (!cur) continue;
    const { text } = cur;
    let lower: string | null = null;
    const claimed: [number, number][] = [];
    const found: SecretMatch[] = [];
    for (const d of set.detectors) {
      lower ??= text.toLowerCase();
      const l = lower;
      if (!d.keywords.some((k) => l.includes(k))) continue;
      const re = d.regex;
      re.lastIndex = 0;
      let m: RegExpExecArray | null;
      while ((m = re.exec(text)) !== null) {
        const matchEnd = m.index + m[0].length;
        if (d.blockEnd !== null) {
          const { body, resumeAt } = blockBody(d, lines, i, matchEnd);
          re.lastIndex = Number.isFinite(resumeAt) ? Math.max(resumeAt, matchEnd) : text.length;
          if (accepts(d, body)) {
            claimed.push([m.index, matchEnd]);
            found.push({ detector: d, value: body, line: cur.line, column: m.index + 1 });
          }
          continue;
        }
        const span = m.indices?.groups?.["value"] ?? m.indices?.[0] ?? [m.index, matchEnd];
        let [s, e] = span;
        // Only a value that opens the match may grow backwards: otherwise the regex's own left context
        // (`key=`) bounds it, and growing would swallow the name.
        if (s === m.index) while (s > 0 && inSet(d.charset, text.charCodeAt(s - 1))) s--;
        while (e < text.length && inSet(d.charset, text.charCodeAt(e))) e++;
        re.lastIndex = Math.max(e, m.index + 1);
        const value = text.slice(s, e);
        if (!accepts(d, value)) continue;
        if (isReference(text, s, e, set.references)) continue;
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
