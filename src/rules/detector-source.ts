// A detector's regex as the scan compiles it, without zod: the hook's fast path (src/cli/fast-path.ts)
// compiles the same sources from the rules pack the build embeds, so it decides "no secret can be
// here" with the very regexes the full scan would run.

export interface DetectorSourceSpec {
  regex: string;
  charset: string;
  left_boundary?: boolean | undefined;
}

/**
 * The left boundary of a prefixed token: no character of its own set just before it, so a match never
 * starts inside a longer run; except right after an escape, where a key is glued to text that encodes
 * a separator: `%3DAKIA…` (URL-encoded `=`), `\u003dAKIA…` (JSON-escaped), `\nghp_…`.
 */
function leftBoundary(charset: string): string {
  // `=` pads base64 at its end only; before a key it is the assignment (`KEY=glc_…`).
  const before = charset.replaceAll("=", "");
  return `(?:(?<![${before}])|(?<=%[0-9A-Fa-f]{2})|(?<=\\\\u[0-9A-Fa-f]{4})|(?<=\\\\[nrt]))`;
}

/** Regexes of a detector spec as compiled (the left boundary included), for the linear-time lint. */
export function compiledSource(spec: DetectorSourceSpec): string {
  return spec.left_boundary ? `${leftBoundary(spec.charset)}(?:${spec.regex})` : spec.regex;
}
