// Durations as the flags take them: a number and a unit (ms, s, m, h, d), or a bare number of seconds
// (as PostgreSQL's connect_timeout takes it).
const UNIT: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Milliseconds, or null when the text is not a duration above 0. */
export function parseDuration(text: string): number | null {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(text);
  if (!m) return null;
  const ms = Math.round(Number(m[1]) * (UNIT[m[2] ?? "s"] as number));
  return ms > 0 && Number.isFinite(ms) ? ms : null;
}
