// mode: audit — runs `kvgate audit --range A..B --format json` (contract section 9) on the pushed
// range and reads its JSON back, so the Action and the CLI can never disagree on a classification.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GateError } from "../errors.js";
import type { Finding } from "../model/types.js";
import { auditCommand } from "../cli/commands/audit.js";

interface AuditCommit {
  sha: string;
  subject: string;
  override: unknown;
  classification: string;
  findings: Finding[];
}

export interface AuditReport {
  verdict: "pass" | "fail";
  commits: AuditCommit[];
}

export async function runAudit(dir: string, range: string, shard?: string): Promise<AuditReport> {
  const out = mkdtempSync(join(tmpdir(), "kvgate-audit-"));
  const file = join(out, "audit.json");
  try {
    await auditCommand(["--range", range, ...(shard ? ["--shard", shard] : []), "--repo", dir, "--format", "json", "--output", file]);
    const doc = JSON.parse(readFileSync(file, "utf8")) as Partial<AuditReport>;
    if ((doc.verdict !== "pass" && doc.verdict !== "fail") || !Array.isArray(doc.commits)) {
      throw new GateError("kvgate audit printed JSON without verdict/commits", {
        hint: "report this as a kvgate bug: `kvgate audit --format json` must print { verdict, commits }",
      });
    }
    return { verdict: doc.verdict, commits: doc.commits.map((c) => ({ ...c, findings: Array.isArray(c.findings) ? c.findings : [] })) };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

export function auditSummaryMarkdown(report: AuditReport, range: string): string {
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
