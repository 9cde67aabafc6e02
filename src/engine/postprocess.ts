// After the checks run: one pipeline of small pure steps turns reports into findings — render the
// message, redact secrets, fingerprint, apply waivers, sort. Masking happens here, once, before any
// reporter sees a finding.
import { createHash } from "node:crypto";
import type { Finding, Severity } from "../model/types.js";
import type { AnyCheck, Report } from "../checks/define.js";
import type { CommitInfo } from "../git/types.js";
import { ruleById } from "../checks/registry.js";
import { scrubData, scrubText, secretFingerprint } from "../secrets/redact.js";

export function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function toFinding(check: AnyCheck, report: Report<any>, commit: string | null): Finding {
  const rule = report.rule ?? check.id;
  if (report.rule !== undefined && !ruleById(report.rule)) throw new Error(`check ${check.id} reported unregistered rule ${report.rule}`);
  const build = check.messages[report.message];
  if (!build) throw new Error(`check ${check.id} reported unknown message id "${report.message}"`);
  const secrets = report.secret ? [report.secret] : [];
  const message = scrubText(build(report.data), secrets);
  const data = scrubData(report.data, secrets);
  const file = report.file ?? null;
  const service = report.service ?? null;
  const fingerprint = report.secret
    ? secretFingerprint(report.secret)
    : sha256([rule, file ?? "", service ?? "", report.key ?? "", report.key ? "" : message].join("\u0000")).slice(0, 16);
  const severity: Severity = report.severity ?? check.severity;
  const finding: Finding = {
    rule,
    severity,
    status: report.status ?? "open",
    message,
    file,
    line: report.line ?? null,
    service,
    commit,
    fingerprint,
    data,
  };
  if (report.reason !== undefined) finding.reason = scrubText(report.reason, secrets);
  return finding;
}

export interface Waiver {
  rule: string;
  reason: string;
  commit: string;
}

/** `Kvgate-Waive: <rule-id> <reason>` trailers of the commits a unit spans. */
export function waiversOf(commits: readonly CommitInfo[], trailer: string): Waiver[] {
  const out: Waiver[] = [];
  for (const c of commits) {
    for (const t of c.trailers) {
      if (t.key.toLowerCase() !== trailer.toLowerCase()) continue;
      const m = /^(\S+)\s*(.*)$/s.exec(t.value.trim());
      if (m) out.push({ rule: m[1] as string, reason: (m[2] as string).trim(), commit: c.sha });
    }
  }
  return out;
}

/** Turns waived findings' status to `waived`; secret findings cannot be waived. */
export function applyWaivers(findings: Finding[], waivers: readonly Waiver[]): void {
  for (const f of findings) {
    if (f.status !== "open" || f.rule.startsWith("secret/")) continue;
    const w = waivers.find((w) => w.rule === f.rule);
    if (w) {
      f.status = "waived";
      f.reason = w.reason === "" ? `waived in ${w.commit.slice(0, 12)}` : `waived in ${w.commit.slice(0, 12)}: ${w.reason}`;
    }
  }
}

const SEVERITY_ORDER: Record<Severity, number> = { error: 0, warning: 1, notice: 2 };

export function sortFindings(findings: Finding[]): Finding[] {
  return findings.sort(
    (a, b) =>
      (a.file ?? "\uffff").localeCompare(b.file ?? "\uffff") ||
      (a.line ?? 0) - (b.line ?? 0) ||
      SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] ||
      a.rule.localeCompare(b.rule),
  );
}

/** The same finding from two units of one run (a range re-checking an untouched file) is kept once. */
export function dedupe(findings: Finding[]): Finding[] {
  const seen = new Set<string>();
  return findings.filter((f) => {
    const k = `${f.fingerprint}|${f.commit ?? ""}|${f.file ?? ""}|${f.line ?? ""}|${String(f.data.column ?? "")}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
