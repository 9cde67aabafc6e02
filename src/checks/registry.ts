// Every rule, flat: the modules of src/checks/ (listed by the generated ./index.ts, so adding a rule
// is adding its file) and the families a check reports (secret/<detector>). Tests assert each rule is
// documented in the README and raised by a case of its rule table.
import type { AnyCheck, AnyRule, RuleMeta } from "./define.js";
import { isCheck } from "./define.js";
import { RULE_MODULES } from "./index.js";

/**
 * Rule ids are lowercase words, digits, `-` and `/` (test/rules/rules.test.ts holds them to it), an
 * alphabet in which code-point order is the locale's order: comparing code points spares every start
 * of the CLI the ICU collator's set-up that localeCompare pays on first use (~10 ms).
 */
const byId = <T extends RuleMeta>(a: T, b: T): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Every check, in id order: what the engine runs over each deploy unit. */
export const CHECKS: readonly AnyCheck[] = RULE_MODULES.filter(isCheck).sort(byId);

/** Every rule module (checks, and rules the audit or the waiver trailers raise), in id order. */
export const RULE_MODULES_BY_ID: readonly AnyRule[] = [...RULE_MODULES].sort(byId);

/** Every rule id the gate can report, in id order. */
export const RULES: readonly RuleMeta[] = [...RULE_MODULES, ...CHECKS.flatMap((c) => c.family ?? [])].sort(byId);

const rules = new Map(RULES.map((r) => [r.id, r]));
const modules = new Map(RULE_MODULES.map((r) => [r.id, r]));

export function ruleById(id: string): RuleMeta | undefined {
  return rules.get(id);
}

/** The module of a rule id that has its own messages (not a family member). */
export function ruleModule(id: string): AnyRule | undefined {
  return modules.get(id);
}
