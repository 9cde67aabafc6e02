// What an amended commit's trailers must say (issue 26). `check --staged` gates the change from HEAD to
// the staged tree; an amended commit replaces HEAD, so its change is HEAD's parent to that tree: HEAD's
// own part was gated when HEAD was committed, and its trailers say how. The two are joined here, so an
// amend neither writes `pass` over a change that never ran the gate nor drops HEAD's override record.
import type { VerdictRecord } from "../git/verdict-store.js";
import { ALLOWED_TRAILER, VERDICT_TRAILER, parseAllowedTrailer, parseVerdictTrailer, trailersOfMessage } from "./trailers.js";

/** HEAD's Kvgate trailers: its verdict (null: none) and the secrets its override let through. */
export interface AmendedHead {
  verdict: "pass" | "allowed" | "not-run" | null;
  allowed: { rule: string; fingerprint: string; file: string | null; line: number | null }[];
}

export function amendedHeadOf(message: string): AmendedHead {
  const is = (k: string, want: string) => k.toLowerCase() === want.toLowerCase();
  const trailers = trailersOfMessage(message);
  const verdict = trailers.filter((t) => is(t.key, VERDICT_TRAILER)).map((t) => parseVerdictTrailer(t.value))[0]?.verdict ?? null;
  const allowed = trailers
    .filter((t) => is(t.key, ALLOWED_TRAILER))
    .map((t) => parseAllowedTrailer(t.value))
    .filter((a) => a !== null)
    .map((a) => {
      const m = /^(.*):(\d+)$/.exec(a.where);
      const file = a.where === "" || a.where === "-" ? null : m ? (m[1] ?? "") : a.where;
      return { rule: a.rule, fingerprint: a.fingerprint, file, line: m ? Number(m[2]) : null };
    });
  return { verdict, allowed };
}

/**
 * The record the amended commit's trailers are written from. `record` is the staged run's (HEAD to the
 * staged change); `stillThere(file)` says whether an allowed secret's file is still in the amended tree. Null
 * (not-run) when either part did not run the gate: HEAD committed with --no-verify, or with no Kvgate
 * trailer (the gate was not installed then), or no passing record for the tree.
 */
export function amendedRecord(
  record: VerdictRecord | null,
  head: AmendedHead,
  stillThere: (file: string) => boolean,
): VerdictRecord | null {
  // The record is the staged change's own (looked up by its key): no tree to compare.
  if (!record || record.verdict === "fail") return null;
  if (head.verdict === null || head.verdict === "not-run") return null;
  // A secret of HEAD's override whose file is gone from the tree left with it; one whose file is still
  // there is kept (whether the line was edited or not: a record too many is audited, one too few lies).
  const kept = head.allowed.filter((a) => a.file === null || stillThere(a.file));
  const ours = new Set(record.allowed.map((a) => a.fingerprint));
  const allowed = [...record.allowed, ...kept.filter((a) => !ours.has(a.fingerprint))];
  return { ...record, verdict: allowed.length > 0 ? "allowed" : "pass", allowed };
}
