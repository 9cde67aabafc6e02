// What one run of the gate produces. The engine builds it; reporters only format it; the CLI picks
// the exit code from `verdict`.
import type { Finding, Severity } from "../model/types.js";
import type { Coverage } from "../kv/coverage.js";

export type Mode = "staged" | "commit" | "range" | "all";
export type FailOn = "error" | "warning" | "never";

export interface Counts {
  error: number;
  warning: number;
  notice: number;
  exempt: number;
  allowed: number;
  waived: number;
}

export interface CheckResult {
  tool: "kvgate";
  version: string;
  mode: Mode;
  verdict: "pass" | "fail";
  failOn: FailOn;
  /** Open findings by severity; exempt / allowed / waived by status. */
  counts: Counts;
  findings: Finding[];
  /** The deploy units checked (`staged`, shas, `A..B`, `all`). */
  units: string[];
  /** Files the change touched, for the one-line "all passed" summary. */
  filesChecked: number;
  /** What the verdict covers: seats sized, the cards they are on, services that are not seats, seats
   *  unsized (the newest unit's fleet after the change); absent for a run with no unit. */
  coverage?: Coverage;
}

export function countFindings(findings: readonly Finding[]): Counts {
  const c: Counts = { error: 0, warning: 0, notice: 0, exempt: 0, allowed: 0, waived: 0 };
  for (const f of findings) {
    if (f.status === "open") c[f.severity]++;
    else c[f.status]++;
  }
  return c;
}

const RANK: Record<Severity, number> = { error: 3, warning: 2, notice: 1 };

/** `fail` iff an open finding reaches --fail-on. */
export function verdictOf(findings: readonly Finding[], failOn: FailOn): "pass" | "fail" {
  if (failOn === "never") return "pass";
  const floor = RANK[failOn];
  return findings.some((f) => f.status === "open" && RANK[f.severity] >= floor) ? "fail" : "pass";
}
