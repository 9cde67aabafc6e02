// A value fix as a replacement in the file's text (SARIF 2.1.0 §3.55 fix → §3.57 replacement): the
// region of the value the fix overwrites, or an insertion at the end when the fix adds a line, and the
// text to put there. Applying it gives exactly the text `kvgate check --fix` writes (the same writer).
import { applyFixes, splitKeep } from "./edit.js";
import type { ValueFix } from "../model/value-fix.js";

export interface Replacement {
  /** 0-based offset and length in UTF-16 code units (SARIF's default columnKind). */
  charOffset: number;
  charLength: number;
  /** 1-based line and columns of the same region; absent for an insertion at the end of the file. */
  startLine?: number;
  startColumn?: number;
  endColumn?: number;
  /** What goes in the region's place. */
  text: string;
}

/** The replacement that writes `fix` into `text`; null when the writer cannot place it (the key is gone, or set through a variable). */
export function fixReplacement(text: string, fix: ValueFix): Replacement | null {
  const edit = applyFixes(text, fix.file, [fix]);
  const applied = edit.applied[0];
  if (!applied || edit.applied.length !== 1) return null;
  if (!applied.span) {
    // An added line: the writer only ever appends (with a line ending first when the file lacks one).
    return edit.text.startsWith(text) ? { charOffset: text.length, charLength: 0, text: edit.text.slice(text.length) } : null;
  }
  const { lines, ends } = splitKeep(text);
  let lineStart = 0;
  for (let i = 0; i < applied.line - 1; i++) lineStart += (lines[i] ?? "").length + (ends[i] ?? "").length;
  const { column, width, written } = applied.span;
  return {
    charOffset: lineStart + column,
    charLength: width,
    startLine: applied.line,
    startColumn: column + 1,
    endColumn: column + width + 1,
    text: written,
  };
}

/** The text with the replacement made: what a SARIF viewer's "apply fix" does. */
export function applyReplacement(text: string, r: Replacement): string {
  return text.slice(0, r.charOffset) + r.text + text.slice(r.charOffset + r.charLength);
}
