// Every check and rule, in id order. A test asserts each is registered, documented in the README,
// and has a passing and a failing case.
import type { AnyCheck, RuleMeta } from "./define.js";
import * as env from "./groups/env.js";
import * as kv from "./groups/kv.js";
import * as radiance from "./groups/radiance.js";
import * as secrets from "./groups/secrets.js";
import * as playbook from "./groups/playbook.js";

const groups = [env, kv, radiance, secrets, playbook];

export const CHECKS: readonly AnyCheck[] = groups.flatMap((g) => g.checks).sort((a, b) => a.id.localeCompare(b.id));

/** Every rule id the gate can report: checks, and rules raised by commands (audit, waivers). */
export const RULES: readonly RuleMeta[] = [...CHECKS, ...groups.flatMap((g) => g.rules)].sort((a, b) => a.id.localeCompare(b.id));

export function ruleById(id: string): RuleMeta | undefined {
  return RULES.find((r) => r.id === id);
}
