// Timestamps as LiteLLM writes them: ISO 8601 (`2026-10-05T22:26:01.123456Z`, `+00:00`), PostgreSQL's
// text form (`2026-10-05 22:26:01.123`), or either without a zone — LiteLLM's database column is a
// `timestamp(3)` without time zone holding UTC, so a time without a zone is read as UTC. The result is
// milliseconds since the epoch, with sub-millisecond digits kept as a fraction.
//
// Hand-parsed: Date.parse drops microseconds and is a measurable share of the time on 10 million rows.

const DIGIT0 = 48;

function digits(s: string, at: number, n: number): number {
  let v = 0;
  for (let i = at; i < at + n; i++) {
    const d = s.charCodeAt(i) - DIGIT0;
    if (d < 0 || d > 9) return -1;
    v = v * 10 + d;
  }
  return v;
}

/** Milliseconds since the epoch, or null when the text is not such a timestamp. */
export function parseTimestamp(s: string): number | null {
  if (s.length < 19) return dateOnly(s);
  const y = digits(s, 0, 4);
  const mo = digits(s, 5, 2);
  const d = digits(s, 8, 2);
  const h = digits(s, 11, 2);
  const mi = digits(s, 14, 2);
  const sec = digits(s, 17, 2);
  const sep = s.charCodeAt(10);
  if (y < 0 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 60) return null;
  if (s[4] !== "-" || s[7] !== "-" || (sep !== 84 /* T */ && sep !== 32 /* space */) || s[13] !== ":" || s[16] !== ":") return null;
  let i = 19;
  let frac = 0;
  if (s[i] === "." || s[i] === ",") {
    i++;
    let scale = 100;
    const from = i;
    while (i < s.length) {
      const c = s.charCodeAt(i) - DIGIT0;
      if (c < 0 || c > 9) break;
      frac += c * scale;
      scale /= 10;
      i++;
    }
    if (i === from) return null;
  }
  let offsetMin = 0;
  if (i < s.length) {
    const z = s[i];
    if (z === "Z" || z === "z") {
      i++;
    } else if (z === "+" || z === "-") {
      const m = /^(\d{2})(?::?(\d{2}))?$/.exec(s.slice(i + 1));
      if (!m) return null;
      offsetMin = (z === "+" ? 1 : -1) * (Number(m[1]) * 60 + Number(m[2] ?? 0));
      i = s.length;
    }
    if (i !== s.length) return null;
  }
  const day = Date.UTC(y, mo - 1, d);
  // Date.UTC rolls 2026-02-30 over to March: refuse it.
  if (new Date(day).getUTCDate() !== d) return null;
  return day + ((h * 60 + mi - offsetMin) * 60 + sec) * 1000 + frac;
}

/** `2026-10-05`: midnight UTC (what --since/--until accept besides full timestamps). */
function dateOnly(s: string): number | null {
  if (s.length !== 10 || s[4] !== "-" || s[7] !== "-") return null;
  const y = digits(s, 0, 4);
  const mo = digits(s, 5, 2);
  const d = digits(s, 8, 2);
  if (y < 0 || mo < 1 || mo > 12 || d < 1 || d > 31) return null;
  const day = Date.UTC(y, mo - 1, d);
  return new Date(day).getUTCDate() === d ? day : null;
}

/** `2026-10-05T22:26:01.123Z` (milliseconds; the fraction below is dropped for display). */
export function isoOf(ms: number): string {
  return new Date(Math.floor(ms)).toISOString();
}
