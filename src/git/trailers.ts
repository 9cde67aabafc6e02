// Commit trailers, parsed the way `git interpret-trailers --parse` finds them: the last paragraph of
// the message (never the subject paragraph), `Key: value` lines with indented continuation lines.
import type { Trailer } from "./types.js";

/** Trailer keys that make a mixed paragraph count as a trailer block (git: Signed-off-by, cherry-pick). */
const KNOWN = [/^signed-off-by$/i, /^co-authored-by$/i, /^kvgate-/i];
const TRAILER_LINE = /^([A-Za-z0-9][A-Za-z0-9-]*)[ \t]*:[ \t]*(.*)$/;

/** Keys keep their spelling; compare them case-insensitively (git does). Values are trimmed and unfolded. */
export function parseTrailers(message: string): Trailer[] {
  // One line (blank ones after it aside) is the subject paragraph alone: nothing can be a trailer.
  if (!message.trimEnd().includes("\n")) return [];
  const lines = message.replace(/\r\n/g, "\n").split("\n");
  const blank = (i: number): boolean => (lines[i] ?? "").trim() === "";
  let end = lines.length;
  while (end > 0 && blank(end - 1)) end--;
  let titleEnd = 0;
  while (titleEnd < end && !blank(titleEnd)) titleEnd++;
  let start = end;
  while (start > titleEnd && !blank(start - 1)) start--;
  if (start <= titleEnd) return [];

  const trailers: Trailer[] = [];
  let others = 0;
  let current: Trailer | null = null;
  for (const line of lines.slice(start, end)) {
    if (line.startsWith("#")) continue;
    if (/^[ \t]/.test(line) && current) {
      current.value = `${current.value} ${line.trim()}`.trim();
      continue;
    }
    const m = TRAILER_LINE.exec(line);
    if (m) {
      current = { key: m[1] as string, value: (m[2] as string).trim() };
      trailers.push(current);
    } else {
      others++;
      current = null;
    }
  }
  const known = trailers.some((t) => KNOWN.some((k) => k.test(t.key)));
  // git: all lines are trailers, or at least 25% are and one of them is a known kind.
  if (trailers.length > 0 && (others === 0 || (known && trailers.length * 3 >= others))) return trailers;
  return [];
}
