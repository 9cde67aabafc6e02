// `kvgate audit`: classify one commit from its message, its trailers and a re-scan of it with the
// current policy (docs/secrets.md). Pure: the engine gathers the inputs and turns the reports into
// findings (src/engine/audit.ts); the audit/* rules of src/checks/ hold their messages.
import type { Finding } from "../model/types.js";
import type { Report } from "../model/rule.js";
import type { Trailer } from "../git/types.js";
import { secretFingerprint } from "./redact.js";
import {
  ALLOWED_TRAILER,
  VERDICT_TRAILER,
  parseAllowedTrailer,
  parseVerdictTrailer,
  trailersOfMessage,
  type TrailerVerdict,
} from "./trailers.js";

export type Classification = "clean" | "exempt-only" | "secret-landed" | "bypass" | "verdict-mismatch";

export interface ClassifyInput {
  sha?: string;
  message: string;
  trailers: readonly Trailer[];
  /** The findings of re-scanning this commit with the current policy (after the engine's pipeline). */
  findings: readonly Finding[];
  /** policy.secrets.override (default ALLOW_SECRETS). */
  override?: string;
}

export interface ClassifyResult {
  classification: Classification;
  /** Whether the commit recorded an override (trailer, or the message naming ALLOW_SECRETS=1). */
  override: boolean;
  /** The Kvgate-Verdict trailer's verdict, null when the commit has none. */
  verdict: TrailerVerdict | null;
  /** audit/* reports for this commit. */
  reports: AuditReport[];
}

/** A report of an audit/* rule: which rule, and the place and fingerprint of the secret it is about. */
type AuditReport = Report & { rule: string; fingerprint: string };

function isSecretFinding(f: Finding): boolean {
  return f.rule.startsWith("secret/") && f.rule !== "secret/skipped";
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** `NAME=1` as a word, by override name: compiled once per name, not once per audited commit. */
const overridePatterns = new Map<string, RegExp>();

function namesOverride(name: string, message: string): boolean {
  let re = overridePatterns.get(name);
  if (!re) {
    re = new RegExp(`(?<![A-Za-z0-9_])${escapeRegex(name)}=1(?![0-9])`);
    overridePatterns.set(name, re);
  }
  return re.test(message);
}

export function classifyCommit(input: ClassifyInput): ClassifyResult {
  const name = input.override ?? "ALLOW_SECRETS";
  const sha = input.sha ?? null;
  // The git layer's parsed trailers, plus the message's own last paragraph in case it parsed none.
  const trailers = [...input.trailers, ...trailersOfMessage(input.message)];
  const is = (t: { key: string }, key: string): boolean => t.key.toLowerCase() === key.toLowerCase();
  const verdicts = trailers
    .filter((t) => is(t, VERDICT_TRAILER))
    .map((t) => parseVerdictTrailer(t.value))
    .filter((v) => v !== null);
  const allowedTrailers = trailers
    .filter((t) => is(t, ALLOWED_TRAILER))
    .map((t) => parseAllowedTrailer(t.value))
    .filter((v) => v !== null);
  const verdict = verdicts[0]?.verdict ?? null;
  const override = verdict === "allowed" || allowedTrailers.length > 0 || namesOverride(name, input.message);
  const recordedFps = new Set(allowedTrailers.map((a) => a.fingerprint));

  const secrets = input.findings.filter(isSecretFinding);
  const real = secrets.filter((f) => f.status !== "exempt");
  const exempt = secrets.filter((f) => f.status === "exempt");

  // Each report is about one secret finding (or, for override-unneeded, the commit): its place, and
  // a fingerprint of the rule, the commit and that finding, so the same landing is one identity.
  const report = (rule: string, message: string, about: Finding | null, data: Record<string, unknown>): AuditReport => ({
    rule,
    message,
    data,
    file: about?.file ?? null,
    line: about?.line ?? null,
    fingerprint: secretFingerprint(`${rule}\0${sha ?? ""}\0${about?.fingerprint ?? ""}`),
  });

  if (real.length === 0) {
    const reports: AuditReport[] = [];
    if (override) {
      reports.push(
        report("audit/override-unneeded", exempt.length > 0 ? "exempt" : "nothing", null, {
          exempt: exempt.length,
          fingerprints: exempt.map((f) => f.fingerprint),
        }),
      );
    }
    return { classification: exempt.length > 0 ? "exempt-only" : "clean", override, verdict, reports };
  }

  if (override) {
    const reports = real.map((f) =>
      report("audit/secret-landed", "landed", f, {
        secret_rule: f.rule,
        secret_fingerprint: f.fingerprint,
        recorded: recordedFps.has(f.fingerprint),
      }),
    );
    return { classification: "secret-landed", override, verdict, reports };
  }

  if (verdict === "pass") {
    const reports = real.map((f) =>
      report("audit/verdict-mismatch", "mismatch", f, { secret_rule: f.rule, secret_fingerprint: f.fingerprint, trailer_verdict: "pass" }),
    );
    return { classification: "verdict-mismatch", override, verdict, reports };
  }

  const reports = real.map((f) =>
    report("audit/bypass", "bypass", f, { secret_rule: f.rule, secret_fingerprint: f.fingerprint, trailer_verdict: verdict }),
  );
  return { classification: "bypass", override, verdict, reports };
}
