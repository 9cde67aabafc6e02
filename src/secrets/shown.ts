// What file content may look like once it is shown. Two hazards besides the detectors' secrets:
//   - control characters and escape sequences: a crafted env line could move the cursor, erase the
//     lines above and print a fake "PASS" in the user's terminal (or split a log line in CI);
//   - key bodies: a pasted PEM key is dozens of base64 lines, and a finding that quotes one of them
//     (env/parse's "line 3 is not KEY=VALUE: …") prints part of the key though the key itself was found.
// Both are undone here, for the pipeline's one masking step (src/engine/pipeline.ts) and the few
// texts shown outside a finding (explain, audit subjects, error messages).
import { redactSecret } from "./redact.js";

/**
 * C0 and C1 controls, DEL, and the invisible format characters that reorder or hide text (bidi
 * embeddings, overrides and isolates, line and paragraph separators, zero-width marks).
 */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/gu;
/** The same, leaving newline and tab: a multi-line document (explain) keeps its lines. */
const CONTROL_IN_DOCUMENT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/gu;

const NAMED: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t", "\u001b": "\\e" };

function escapeOne(ch: string): string {
  const named = NAMED[ch];
  if (named) return named;
  const code = ch.codePointAt(0) ?? 0;
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u{${code.toString(16)}}`;
}

/** One line of shown text: every control character as a visible escape (`\e`, `\r`, `\x07`, `\u{202e}`). */
export function escapeControls(s: string): string {
  return s.replace(CONTROL, escapeOne);
}

/** A multi-line document: the same, newlines and tabs kept. */
export function escapeControlsInDocument(s: string): string {
  return s.replace(CONTROL_IN_DOCUMENT, escapeOne);
}

/** A run of the base64 alphabet (standard and URL-safe) with its padding: what a key body is made of. */
const RUN = /[A-Za-z0-9+/_-]+=*/g;
/** The window a key's body is compared in: no 8 characters of a known key are ever shown. */
const KEY_WINDOW = 8;
/**
 * A run shown nowhere whatever found it: 24+ characters of the plain base64 alphabet holding upper
 * and lower case and digits, the shape of a key's base64 line. (Model names, paths, hashes and flags
 * break on `-` and `.` or lack a case, so they are never this shape.)
 */
const KEY_LIKE = /^[A-Za-z0-9+/]{24,}=*$/;
/** The least a KEY_LIKE run holds: 24 characters of its alphabet in a row. */
const KEY_RUN_24 = /[A-Za-z0-9+/]{24}/;
const isKeyLike = (run: string): boolean => KEY_LIKE.test(run) && /[A-Z]/.test(run) && /[a-z]/.test(run) && /[0-9]/.test(run);

/** The 8-character windows of known secret values, to find any quoted piece of them. */
export class KeyWindows {
  private readonly windows = new Set<string>();

  add(secret: string): void {
    for (const part of secret.match(RUN) ?? []) {
      for (let i = 0; i + KEY_WINDOW <= part.length; i++) this.windows.add(part.slice(i, i + KEY_WINDOW));
    }
  }

  get size(): number {
    return this.windows.size;
  }

  /** True when `run` holds any 8 characters of a known secret. */
  holds(run: string): boolean {
    if (this.windows.size === 0 || run.length < KEY_WINDOW) return false;
    for (let i = 0; i + KEY_WINDOW <= run.length; i++) if (this.windows.has(run.slice(i, i + KEY_WINDOW))) return true;
    return false;
  }
}

const NO_KEYS = new KeyWindows();

/**
 * Every run that is a piece of a known key, or (with `byShape`) shaped like a key body, replaced by
 * its redacted form. A path or a service name is masked by the known keys only: a file may well be
 * named `scripts/Qwen25Coder32BInstructAWQ.env`, and a masked path would point nowhere.
 */
export function maskKeyBodies(s: string, keys: KeyWindows = NO_KEYS, byShape = true): string {
  // With no known keys, only a key-shaped run is masked, and that needs 24 alphabet characters in a
  // row: a text without them (a commit subject, most messages) is returned without a pass over its runs.
  if (keys.size === 0 && (!byShape || !KEY_RUN_24.test(s))) return s;
  return s.replace(RUN, (run) => ((byShape && isKeyLike(run)) || keys.holds(run) ? redactSecret(run) : run));
}
