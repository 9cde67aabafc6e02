// kvgate audit: re-scan each commit of a range with the current policy and classify it (contract
// section 9). The engine part: no printing, no exit codes.
import type { DeployUnit } from "../git/types.js";
import type { Finding } from "../model/types.js";
import type { Policy } from "../config/policy.js";
import type { RulesPack } from "../rules/pack.js";
import { secretScan } from "../checks/secret-scan.js";
import { toFinding } from "../engine/postprocess.js";
import { emptyFleet } from "../model/build.js";
import { classifyCommit, type Classification } from "../secrets/audit.js";
import { VERSION } from "../version.js";

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

/** The secret findings of one commit as the current policy sees them, without any override. */
export function rescan(unit: DeployUnit, policy: Policy, pack: RulesPack): Finding[] {
  const fleet = emptyFleet(policy);
  const ctx = {
    unit: { kind: unit.kind, id: unit.id, commit: unit.commit, commits: unit.commits, files: unit.files },
    before: null,
    after: fleet,
    policy,
    pack,
    // The override is what is being audited, so the re-scan never applies it.
    env: {},
  };
  const sha = unit.commit?.sha ?? null;
  return secretScan.run(ctx).map((r) => toFinding(secretScan, r, sha));
}

export function auditUnit(unit: DeployUnit, policy: Policy, pack: RulesPack): AuditRow {
  const commit = unit.commit;
  if (!commit) throw new Error(`audit needs commit units, got ${unit.kind}`);
  const scanned = rescan(unit, policy, pack);
  const c = classifyCommit({ sha: commit.sha, message: commit.message, trailers: commit.trailers, findings: scanned, override: policy.secrets.override });
  return { sha: commit.sha, subject: commit.subject, override: c.override, classification: c.classification, findings: [...scanned, ...c.reports] };
}

export function auditResult(range: string, rows: AuditRow[]): AuditResult {
  const fail = rows.some((r) => r.findings.some((f) => f.status === "open" && f.severity === "error" && f.rule.startsWith("audit/")));
  return { tool: "kvgate", version: VERSION, range, verdict: fail ? "fail" : "pass", commits: rows };
}
