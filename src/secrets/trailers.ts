// The Kvgate-Verdict / Kvgate-Allowed-Secret trailers that `kvgate hook prepare-commit-msg` writes.
// They go in the trailer block at the end of the message, above git's comment lines and above a
// `commit -v` scissors line, and replace earlier Kvgate ones (an --amend, `-c`, or a reused -F file),
// so a message never carries two verdicts.
import type { VerdictRecord } from "../git/verdict-store.js";

export const VERDICT_TRAILER = "Kvgate-Verdict";
export const ALLOWED_TRAILER = "Kvgate-Allowed-Secret";
export type TrailerVerdict = "pass" | "allowed" | "not-run";

const OURS = /^kvgate-(?:verdict|allowed-secret)[ \t]*:/i;
const TRAILER_LINE = /^[A-Za-z0-9][A-Za-z0-9-]*[ \t]*:[ \t]*\S/;
const CHERRY_PICKED = /^\(cherry picked from commit [0-9a-f]+\)$/;

function oneLine(s: string): string {
  return s.replace(/[\r\n]+/g, " ");
}

/** What the trailer says: no record of exactly this staged change (looked up by its key) means the gate did not run. */
export function trailerVerdict(record: VerdictRecord | null): TrailerVerdict {
  if (!record) return "not-run";
  if (record.verdict === "pass") return "pass";
  if (record.verdict === "allowed") return "allowed";
  // A failed run followed by a commit means the commit skipped the gate (--no-verify).
  return "not-run";
}

function kvgateTrailers(record: VerdictRecord | null, tree: string): string[] {
  const verdict = trailerVerdict(record);
  const lines = [`${VERDICT_TRAILER}: ${verdict} tree=${tree}`];
  if (verdict === "allowed" && record) {
    for (const a of record.allowed) {
      const where = a.file === null ? "-" : `${oneLine(a.file)}${a.line === null ? "" : `:${a.line}`}`;
      lines.push(`${ALLOWED_TRAILER}: ${a.rule} ${a.fingerprint} ${where}`);
    }
  }
  return lines;
}

export interface CommitMsgOptions {
  /** git's core.commentChar (default `#`). */
  commentChar?: string;
}

function scissorsAt(lines: readonly string[], cc: string): number {
  const scissors = `${cc} ------------------------ >8 ------------------------`;
  return lines.findIndex((l) => l === scissors);
}

function isTrailerParagraph(lines: readonly string[], isComment: (l: string) => boolean): boolean {
  const body = lines.filter((l) => !isComment(l));
  if (body.length === 0 || !TRAILER_LINE.test(body[0] ?? "")) return false;
  return body.every((l) => TRAILER_LINE.test(l) || CHERRY_PICKED.test(l) || /^[ \t]+\S/.test(l));
}

/**
 * The message git will open in the editor, with this tree's Kvgate trailers. `source` is the hook's
 * second argument (`message`, `template`, `merge`, `squash`, `commit`, or none).
 */
export function prepareCommitMsg(
  message: string,
  source: string | undefined,
  record: VerdictRecord | null,
  tree: string,
  options: CommitMsgOptions = {},
): string {
  void source; // Every source gets the same treatment: replace ours, keep the rest of the message intact.
  const cc = options.commentChar ?? "#";
  const isComment = (l: string): boolean => l.startsWith(cc);
  const all = message.replace(/\r\n/g, "\n").split("\n");
  const cut = scissorsAt(all, cc);
  const head = (cut >= 0 ? all.slice(0, cut) : all).filter((l) => isComment(l) || !OURS.test(l));
  const tail = cut >= 0 ? all.slice(cut) : [];
  const trailers = kvgateTrailers(record, tree);

  let last = -1;
  for (let i = head.length - 1; i >= 0; i--) {
    const l = head[i] ?? "";
    if (l.trim() !== "" && !isComment(l)) {
      last = i;
      break;
    }
  }
  const rest = head.slice(last + 1);
  while (rest.length > 0 && (rest[0] ?? "").trim() === "") rest.shift();
  while (rest.length > 0 && (rest[rest.length - 1] ?? "").trim() === "") rest.pop();

  let out: string[];
  if (last < 0) {
    // An empty message being edited: leave the subject line empty for the user, as `commit -s` does.
    out = ["", "", ...trailers];
  } else {
    const content = head.slice(0, last + 1);
    let start = last;
    while (start > 0 && (content[start - 1] ?? "").trim() !== "") start--;
    const joinBlock = start > 0 && isTrailerParagraph(content.slice(start), isComment);
    out = [...content, ...(joinBlock ? [] : [""]), ...trailers];
  }
  if (rest.length > 0) out.push("", ...rest);
  let text = `${out.join("\n")}\n`;
  if (tail.length > 0) text += tail.join("\n");
  return text;
}

/** True when, once comments are dropped, the message holds nothing but Kvgate trailers (an abandoned edit). */
export function onlyKvgateTrailers(message: string, options: CommitMsgOptions = {}): boolean {
  const cc = options.commentChar ?? "#";
  const all = message.replace(/\r\n/g, "\n").split("\n");
  const cut = scissorsAt(all, cc);
  const body = (cut >= 0 ? all.slice(0, cut) : all).filter((l) => !l.startsWith(cc) && l.trim() !== "");
  return body.length > 0 && body.every((l) => OURS.test(l));
}

export interface ParsedVerdictTrailer {
  verdict: TrailerVerdict;
  tree: string | null;
}

export function parseVerdictTrailer(value: string): ParsedVerdictTrailer | null {
  const m = /^(pass|allowed|not-run)(?:\s+tree=([0-9a-f]+))?\s*$/.exec(value.trim());
  if (!m) return null;
  return { verdict: m[1] as TrailerVerdict, tree: m[2] ?? null };
}

export interface ParsedAllowedTrailer {
  rule: string;
  fingerprint: string;
  where: string;
}

export function parseAllowedTrailer(value: string): ParsedAllowedTrailer | null {
  const m = /^(\S+)\s+(sha256:[0-9a-f]{12})(?:\s+(.*))?$/.exec(value.trim());
  if (!m) return null;
  return { rule: m[1] ?? "", fingerprint: m[2] ?? "", where: m[3] ?? "" };
}

/** The trailers of the message's last paragraph, for callers that have only the message text. */
export function trailersOfMessage(message: string): { key: string; value: string }[] {
  const lines = message
    .replace(/\r\n/g, "\n")
    .split("\n")
    .filter((l) => !l.startsWith("#"));
  while (lines.length > 0 && (lines[lines.length - 1] ?? "").trim() === "") lines.pop();
  let start = lines.length;
  while (start > 0 && (lines[start - 1] ?? "").trim() !== "") start--;
  if (start === 0) return [];
  const out: { key: string; value: string }[] = [];
  for (const l of lines.slice(start)) {
    const m = /^([A-Za-z0-9][A-Za-z0-9-]*)[ \t]*:[ \t]*(.*)$/.exec(l);
    if (m) out.push({ key: m[1] ?? "", value: m[2] ?? "" });
  }
  return out;
}
