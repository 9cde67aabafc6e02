// `kvgate audit`: classify one commit from its message, its trailers and a re-scan of it with the
// current policy (contract section 9). Pure: the CLI gathers the inputs and renders the table.
import type { Finding } from "../model/types.js";
import type { Trailer } from "../git/types.js";
import { secretFingerprint } from "./redact.js";
import { ALLOWED_TRAILER, VERDICT_TRAILER, parseAllowedTrailer, parseVerdictTrailer, trailersOfMessage, type TrailerVerdict } from "./trailers.js";

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
  /** audit/* findings to report for this commit. */
  reports: Finding[];
}

function isSecretFinding(f: Finding): boolean {
  return f.rule.startsWith("secret/") && f.rule !== "secret/skipped";
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

export function classifyCommit(input: ClassifyInput): ClassifyResult {
  const name = input.override ?? "ALLOW_SECRETS";
  const sha = input.sha ?? null;
  // The git layer's parsed trailers, plus the message's own last paragraph in case it parsed none.
  const trailers = [...input.trailers, ...trailersOfMessage(input.message)];
  const is = (t: { key: string }, key: string): boolean => t.key.toLowerCase() === key.toLowerCase();
  const verdicts = trailers.filter((t) => is(t, VERDICT_TRAILER)).map((t) => parseVerdictTrailer(t.value)).filter((v) => v !== null);
  const allowedTrailers = trailers.filter((t) => is(t, ALLOWED_TRAILER)).map((t) => parseAllowedTrailer(t.value)).filter((v) => v !== null);
  const verdict = verdicts[0]?.verdict ?? null;
  const namesOverride = new RegExp(`(?<![A-Za-z0-9_])${escapeRegex(name)}=1(?![0-9])`).test(input.message);
  const override = verdict === "allowed" || allowedTrailers.length > 0 || namesOverride;
  const recordedFps = new Set(allowedTrailers.map((a) => a.fingerprint));

  const secrets = input.findings.filter(isSecretFinding);
  const real = secrets.filter((f) => f.status !== "exempt");
  const exempt = secrets.filter((f) => f.status === "exempt");

  const report = (rule: string, severity: Finding["severity"], message: string, about: Finding | null, data: Record<string, unknown>): Finding => ({
    rule,
    severity,
    status: "open",
    message,
    file: about?.file ?? null,
    line: about?.line ?? null,
    service: null,
    commit: sha,
    fingerprint: secretFingerprint(`${rule}\0${sha ?? ""}\0${about?.fingerprint ?? ""}`),
    data,
  });
  const where = (f: Finding): string => `${f.file ?? "?"}${f.line === null ? "" : `:${f.line}`}`;

  if (real.length === 0) {
    const reports: Finding[] = [];
    if (override) {
      reports.push(
        report(
          "audit/override-unneeded",
          "notice",
          exempt.length > 0
            ? `${name}=1 was recorded, but the current placeholder filter exempts all ${exempt.length} credential-shaped value(s) in this commit: the override was not needed`
            : `${name}=1 was recorded, but the current scan finds no secret in this commit: the override was not needed`,
          null,
          { exempt: exempt.length, fingerprints: exempt.map((f) => f.fingerprint) },
        ),
      );
    }
    return { classification: exempt.length > 0 ? "exempt-only" : "clean", override, verdict, reports };
  }

  if (override) {
    const reports = real.map((f) =>
      report(
        "audit/secret-landed",
        "error",
        `${f.rule} ${f.fingerprint} at ${where(f)} landed under a recorded ${name}=1 override${recordedFps.has(f.fingerprint) ? "" : " (not among its Kvgate-Allowed-Secret trailers)"}: rotate it, then list it as a placeholder only if it is inert`,
        f,
        { secret_rule: f.rule, secret_fingerprint: f.fingerprint, recorded: recordedFps.has(f.fingerprint) },
      ),
    );
    return { classification: "secret-landed", override, verdict, reports };
  }

  if (verdict === "pass") {
    const reports = real.map((f) =>
      report(
        "audit/verdict-mismatch",
        "error",
        `the commit's ${VERDICT_TRAILER} says pass, but the current scan finds ${f.rule} ${f.fingerprint} at ${where(f)}: rotate it if it is real, and check which policy the gate ran with`,
        f,
        { secret_rule: f.rule, secret_fingerprint: f.fingerprint, trailer_verdict: "pass" },
      ),
    );
    return { classification: "verdict-mismatch", override, verdict, reports };
  }

  const how = verdict === "not-run" ? `its ${VERDICT_TRAILER} says not-run (committed with --no-verify?)` : `it has no ${VERDICT_TRAILER} trailer`;
  const reports = real.map((f) =>
    report(
      "audit/bypass",
      "error",
      `${f.rule} ${f.fingerprint} at ${where(f)} landed without the gate: ${how} and no ${name}=1 override was recorded. Rotate it`,
      f,
      { secret_rule: f.rule, secret_fingerprint: f.fingerprint, trailer_verdict: verdict },
    ),
  );
  return { classification: "bypass", override, verdict, reports };
}
