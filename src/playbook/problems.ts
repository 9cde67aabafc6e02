// The problems of several playbook reads, once each: a tasks file included by two playbooks reports
// its problem once, against the first playbook that reads it.
import type { DeployFile, PlaybookProblem } from "./records.js";
import { FILTERS } from "./template.js";

export function problemsOf(reads: readonly DeployFile[], kind: PlaybookProblem["kind"]): (PlaybookProblem & { playbook: string })[] {
  const seen = new Set<string>();
  const out: (PlaybookProblem & { playbook: string })[] = [];
  for (const r of reads) {
    for (const p of r.problems) {
      const id = `${p.file}:${p.line}:${p.message}`;
      if (p.kind !== kind || seen.has(id)) continue;
      seen.add(id);
      out.push({ ...p, playbook: r.path });
    }
  }
  return out;
}

/** What kvgate could not read and what would let it; long token-like runs are masked (never echo a credential). */
export function unresolvedMessage(what: string, expr: string, reason: string): string {
  const fix = /is not defined/.test(reason)
    ? "define it in the repository's vars (play vars, vars_files, group_vars, host_vars, a role's defaults) if kvgate should check it"
    : `kvgate reads variables, literals, {% if %}/{% for %}/{% set %} and the filters ${FILTERS.join(", ")}`;
  return `${what}: ${maskTokens(expr)} cannot be read: ${maskTokens(reason)}; the setting is skipped (${fix})`;
}

function maskTokens(s: string): string {
  return s.replace(/[A-Za-z0-9_-]{24,}/g, (run) => (/\d/.test(run) && /[A-Za-z]/.test(run) ? `${run.slice(0, 4)}…${run.slice(-2)}` : run));
}
