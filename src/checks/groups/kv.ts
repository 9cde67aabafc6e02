// The kv checks. Each lives in its own file under src/checks/ and is listed here.
import type { AnyCheck, RuleMeta } from "../define.js";

export const checks: AnyCheck[] = [];
/** Rules that are reported by a command rather than by a check's run (none in this group yet). */
export const rules: RuleMeta[] = [];
