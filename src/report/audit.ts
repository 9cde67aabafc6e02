// Audit output: a table of commits (text) or docs/cli.md's JSON.
import type { AuditResult } from "../engine/audit.js";
import { COLORS, PLAIN } from "./color.js";

export function formatAuditJson(result: AuditResult): string {
  return JSON.stringify({ verdict: result.verdict, range: result.range, commits: result.commits }, null, 2) + "\n";
}

export function formatAuditText(result: AuditResult, opts: { color: boolean }): string {
  const p = opts.color ? COLORS : PLAIN;
  const lines: string[] = [];
  const width = Math.max(14, ...result.commits.map((c) => c.classification.length));
  lines.push(`${"commit".padEnd(12)}  ${"classification".padEnd(width)}  override  subject`);
  for (const c of result.commits) {
    const cls = c.classification.padEnd(width);
    const shown = c.classification === "clean" ? p.green(cls) : c.classification === "exempt-only" ? p.cyan(cls) : p.red(cls);
    const subject = c.subject.length > 60 ? c.subject.slice(0, 57) + "..." : c.subject;
    lines.push(`${c.sha.slice(0, 12)}  ${shown}  ${(c.override ? "yes" : "-").padEnd(8)}  ${subject}`);
    for (const f of c.findings.filter((f) => f.rule.startsWith("audit/"))) {
      const sev = f.severity === "error" ? p.red("error") : p.cyan(f.severity);
      lines.push(`    ${sev} ${p.dim(f.rule)} ${f.message}`);
    }
  }
  const count = (k: string) => result.commits.filter((c) => c.classification === k).length;
  const parts = ["clean", "exempt-only", "secret-landed", "bypass", "verdict-mismatch"].map((k) => `${count(k)} ${k}`);
  lines.push("");
  lines.push(
    `kvgate audit ${result.range}: ${result.commits.length} commits: ${parts.join(", ")} ` +
      `— ${result.verdict === "pass" ? p.green(p.bold("PASS")) : p.red(p.bold("FAIL"))}`,
  );
  return lines.join("\n") + "\n";
}

/** The job summary of an audit: the verdict and a row per commit. */
export function auditSummaryMarkdown(report: AuditResult, range: string): string {
  const cell = (s: string) => s.replaceAll("|", "\\|").replace(/\r?\n/g, " ");
  const out = [`## ${report.verdict === "pass" ? "✅" : "❌"} kvgate audit: ${report.verdict} (\`${range}\`)`, ""];
  if (report.commits.length === 0) out.push("No commits in the range.");
  else {
    out.push("| commit | subject | classification | findings |", "|---|---|---|---|");
    for (const c of report.commits) {
      const rules = c.findings.map((f) => `\`${f.rule}\` ${cell(f.file ?? "")}${f.line ? `:${f.line}` : ""}`).join("<br>");
      out.push(`| \`${c.sha.slice(0, 10)}\` | ${cell(c.subject)} | ${c.classification} | ${rules || "—"} |`);
    }
  }
  return out.join("\n") + "\n";
}
