// The playbook checks. Each lives in its own file under src/checks/ and is listed here.
import type { AnyCheck, RuleMeta } from "../define.js";
import { playbookDrift } from "../playbook-drift.js";
import { playbookParse } from "../playbook-parse.js";
import { playbookUnresolved } from "../playbook-unresolved.js";

export const checks: AnyCheck[] = [playbookDrift, playbookParse, playbookUnresolved];
/** Rules that are reported by a command rather than by a check's run (none in this group yet). */
export const rules: RuleMeta[] = [];
