// The problems of several playbook reads, once each: a tasks file included by two playbooks reports
// its problem once, against the first playbook that reads it.
import type { DeployFile, PlaybookProblem } from "./records.js";

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
