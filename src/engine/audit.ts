// kvgate audit: re-scan each commit of a range with the current policy and classify it
// (docs/secrets.md#audit). The scan's reports and the audit/* reports go through the same finding pipeline as the
// checks'. No printing, no exit codes.
import type { ChangedFile, CommitInfo } from "../git/types.js";
import type { Finding } from "../model/types.js";
import type { Policy } from "../config/policy.js";
import type { RulesPack } from "../rules/pack.js";
import type { CheckContext } from "../checks/define.js";
import { secretScan } from "../checks/secret-scan.js";
import { ruleModule } from "../checks/registry.js";
import { emptyFleet } from "../model/build.js";
import { classifyCommit, type Classification } from "../secrets/audit.js";
import { VERSION } from "../version.js";
import type { IgnoreList } from "../secrets/ignore.js";
import { raise, runPhase, type Draft } from "./pipeline.js";
import { pipelineContext, raiseChecks } from "./run.js";

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

/** Audits one commit: its row, with the drafts its findings came from (the rule tester reads their message ids). */
export type Auditor = (input: AuditCommit) => { row: AuditRow; drafts: Draft[] };

/**
 * The audit of a range, set up once: the pipeline context (the masker's detectors), the empty fleet
 * and the policy are the same for every commit, so a history pays for them once, not per commit.
 */
export function createAuditor(policy: Policy, pack: RulesPack, ignore?: IgnoreList | null): Auditor {
  const pctx = pipelineContext(policy, pack);
  const after = emptyFleet(policy);
  return (input) => {
    const commit = input.commit;
    const ctx: CheckContext = {
      unit: { kind: "commit", id: commit.sha, commit, commits: [commit], files: input.files },
      before: null,
      after,
      written: { before: null, after },
      policy,
      pack,
      // The override is what is being audited, so the re-scan never applies it.
      env: {},
      // The current .kvgateignore, like the current policy: a value accepted since is exempt-only.
      ...(ignore ? { ignore } : {}),
    };
    const raised = raiseChecks([secretScan], ctx);
    const scanned = raised.length === 0 ? raised : runPhase("identify", raised, pctx);
    const c = classifyCommit({
      sha: commit.sha,
      message: commit.message,
      trailers: commit.trailers,
      findings: scanned.map((d) => d.finding),
      override: policy.secrets.override,
    });
    const audit: Draft[] = c.reports.map((r) => {
      const rule = ruleModule(r.rule);
      if (!rule) throw new Error(`the audit reported unregistered rule ${r.rule}`);
      return raise(rule, r, commit.sha);
    });
    // A commit with nothing to report (nearly all of a history) skips the pipeline's empty passes.
    const drafts =
      scanned.length === 0 && audit.length === 0 ? [] : runPhase("judge", [...scanned, ...runPhase("identify", audit, pctx)], pctx);
    // A subject is shown in the table and the JSON: a token pasted into it must not be.
    const row = {
      sha: commit.sha,
      subject: pctx.masker.text(commit.subject),
      override: c.override,
      classification: c.classification,
      findings: drafts.map((d) => d.finding),
    };
    return { row, drafts };
  };
}

/** One commit's row, with the drafts its findings came from (a range sets up one auditor: createAuditor). */
export function auditCommitDrafts(
  input: AuditCommit,
  policy: Policy,
  pack: RulesPack,
  ignore?: IgnoreList | null,
): { row: AuditRow; drafts: Draft[] } {
  return createAuditor(policy, pack, ignore)(input);
}

export function auditCommit(input: AuditCommit, policy: Policy, pack: RulesPack, ignore?: IgnoreList | null): AuditRow {
  return auditCommitDrafts(input, policy, pack, ignore).row;
}

export function auditResult(range: string, rows: AuditRow[]): AuditResult {
  const fail = rows.some((r) => r.findings.some((f) => f.status === "open" && f.severity === "error" && f.rule.startsWith("audit/")));
  return { tool: "kvgate", version: VERSION, range, verdict: fail ? "fail" : "pass", commits: rows };
}
