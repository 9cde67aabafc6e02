// The nearest name to a misspelt one (ENGINE=vlm → vllm), by edit distance. A dozen names at most are
// compared, each a few letters long, so the textbook dynamic programme is all it takes; a dependency
// (fastest-levenshtein) would buy speed nobody needs here.

/** Insertions, deletions and substitutions that turn a into b. */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min((prev[j] as number) + 1, (cur[j - 1] as number) + 1, (prev[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length] as number;
}

/** The candidate closest to `name` (case-insensitive; the first on a tie); undefined for no candidates. */
export function nearestName(name: string, candidates: readonly string[]): string | undefined {
  let best: { c: string; d: number } | undefined;
  for (const c of candidates) {
    const d = editDistance(name.toLowerCase(), c.toLowerCase());
    if (!best || d < best.d) best = { c, d };
  }
  return best?.c;
}
