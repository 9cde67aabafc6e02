// kvgate audit: re-scan each commit of a range with the current policy and classify it (contract
// section 9). The engine part: no printing, no exit codes.
import type { ChangedFile, CommitInfo } from "../git/types.js";
import type { Finding } from "../model/types.js";
import type { Policy } from "../config/policy.js";
import type { RulesPack } from "../rules/pack.js";
import { secretScan } from "../checks/secret-scan.js";
import { toFinding } from "./postprocess.js";
import { emptyFleet } from "../model/build.js";
import { classifyCommit, type Classification } from "../secrets/audit.js";
import { VERSION } from "../version.js";
import { createMasker } from "../secrets/mask.js";

export interface AuditRow {
  sha: string;
  subject: string;
  override: boolean;
  classification: Classification;
  findings: Finding[];
}

export interface AuditResult {
  tool: "kvgate";
  version: string;
  range: string;
  verdict: "pass" | "fail";
  commits: AuditRow[];
}

/** One commit as audit needs it: its message and the lines it added (no blob contents). */
export interface AuditCommit {
  commit: CommitInfo;
  files: ChangedFile[];
}

/** The secret findings of one commit as the current policy sees them, without any override. */
export function rescan(c: AuditCommit, policy: Policy, pack: RulesPack): Finding[] {
  const fleet = emptyFleet(policy);
  const ctx = {
    unit: { kind: "commit" as const, id: c.commit.sha, commit: c.commit, commits: [c.commit], files: c.files },
    before: null,
    after: fleet,
    policy,
    pack,
    // The override is what is being audited, so the re-scan never applies it.
    env: {},
  };
  return secretScan.run(ctx).map((r) => toFinding(secretScan, r, c.commit.sha));
}

export function auditCommit(input: AuditCommit, policy: Policy, pack: RulesPack): AuditRow {
  const commit = input.commit;
  const scanned = rescan(input, policy, pack);
  const c = classifyCommit({ sha: commit.sha, message: commit.message, trailers: commit.trailers, findings: scanned, override: policy.secrets.override });
  // A subject is shown in the table and the JSON: a token pasted into it must not be.
  const masker = createMasker(pack.detectors(), policy);
  return { sha: commit.sha, subject: masker.text(commit.subject), override: c.override, classification: c.classification, findings: [...scanned, ...c.reports].map((f) => masker.finding(f)) };
}

export function auditResult(range: string, rows: AuditRow[]): AuditResult {
  const fail = rows.some((r) => r.findings.some((f) => f.status === "open" && f.severity === "error" && f.rule.startsWith("audit/")));
  return { tool: "kvgate", version: VERSION, range, verdict: fail ? "fail" : "pass", commits: rows };
}
