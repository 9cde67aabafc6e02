// Waivers: `Kvgate-Waive: <rule-id> <reason>` trailers of the commits a unit spans. A waiver naming a
// rule kvgate does not have is itself a finding (waiver/unknown-rule): a typo would waive nothing.
import type { CommitInfo } from "../git/types.js";
import type { Report } from "../model/rule.js";
import { ruleById } from "../checks/registry.js";

export interface Waiver {
  rule: string;
  reason: string;
  commit: string;
}

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

/** waiver/unknown-rule reports, with the commit each comes from. */
export function unknownWaivers(waivers: readonly Waiver[]): { report: Report; commit: string }[] {
  return waivers
    .filter((w) => !ruleById(w.rule))
    .map((w) => ({ report: { message: "unknown", data: { rule: w.rule }, fingerprint: `waiver:${w.rule}` }, commit: w.commit }));
}
