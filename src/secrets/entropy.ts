// Shannon entropy in bits per character: random keys score high, words and repeated runs low.
function shannonEntropy(value: string): number {
  if (value.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const ch of value) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / value.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/**
 * How far below the most a value of its length could score a short generic value may fall. A string
 * of L characters scores at most log2(L) bits per character, so a fixed floor of 3.5 would pass no
 * password under 12 characters; below the floor's length the bar is log2(L) minus this slack.
 */
const SHORT_VALUE_SLACK = 0.5;

/**
 * The entropy test of a detector. Fixed-format detectors compare with their floor. The generic one
 * compares with the floor or, for values too short to reach it, with what their length allows less a
 * slack (BENCHMARKS.md gives the measured false-positive rate behind both numbers).
 */
export function meetsEntropyFloor(value: string, floor: number, lengthAware: boolean): boolean {
  const h = shannonEntropy(value);
  if (!lengthAware) return h >= floor;
  return h >= Math.min(floor, Math.log2(value.length) - SHORT_VALUE_SLACK);
}
