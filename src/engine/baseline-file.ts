// `kvgate check --baseline FILE` (docs/secrets.md#kvgateignore): FILE is an earlier `--format json` report; a
// finding whose rule and fingerprint it lists is `exempt` with reason `baseline`. Identity is rule and
// fingerprint only (a secret's fingerprint is its value's hash), never a line, so moving code does not
// churn the baseline. The pipeline's `baseline` step applies it. Pure: the caller reads the file.
import { GateError } from "../errors.js";

export type Baseline = ReadonlySet<string>;

const key = (rule: string, fingerprint: string): string => `${rule}|${fingerprint}`;

/** The rule|fingerprint keys of a JSON report; anything else is an error naming what to pass instead. */
export function parseBaseline(text: string, label: string): Baseline {
  const hint = "pass a report written by `kvgate check --format json --output FILE`";
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new GateError(`--baseline ${label}: not JSON (${(e as Error).message})`, { hint });
  }
  const findings = (doc as { findings?: unknown } | null)?.findings;
  if (typeof doc !== "object" || doc === null || (doc as { tool?: unknown }).tool !== "kvgate" || !Array.isArray(findings)) {
    throw new GateError(`--baseline ${label}: not a kvgate JSON report (no "tool": "kvgate" and "findings" list)`, { hint });
  }
  const out = new Set<string>();
  findings.forEach((f: unknown, i) => {
    const r = f as { rule?: unknown; fingerprint?: unknown } | null;
    if (typeof r?.rule !== "string" || typeof r.fingerprint !== "string" || r.fingerprint === "") {
      throw new GateError(`--baseline ${label}: findings[${i}] has no rule and fingerprint`, { hint });
    }
    out.add(key(r.rule, r.fingerprint));
  });
  return out;
}
