// JSON output, docs/cli.md. Findings keep the contract's keys in its order; `reason` is added
// for exempt / allowed / waived findings (who owns the exception, which placeholder, the waiver's why).
import type { CheckResult } from "../engine/result.js";

export function formatJson(result: CheckResult): string {
  const doc = {
    tool: result.tool,
    version: result.version,
    mode: result.mode,
    verdict: result.verdict,
    counts: result.counts,
    ...(result.coverage ? { coverage: result.coverage } : {}),
    findings: result.findings.map((f) => ({
      rule: f.rule,
      severity: f.severity,
      status: f.status,
      message: f.message,
      file: f.file,
      line: f.line,
      service: f.service,
      commit: f.commit,
      fingerprint: f.fingerprint,
      data: f.data,
      ...(f.reason === undefined ? {} : { reason: f.reason }),
    })),
  };
  return JSON.stringify(doc, null, 2) + "\n";
}
