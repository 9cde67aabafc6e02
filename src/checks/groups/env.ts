// The env-file and engine-spelling checks, and the fleet inventory checks.
import type { AnyCheck, RuleMeta } from "../define.js";
import { envParse } from "../env-parse.js";
import { envDuplicateKey } from "../env-duplicate-key.js";
import { envConflict } from "../env-conflict.js";
import { engineBadValue } from "../engine-bad-value.js";
import { engineFlagAlias } from "../engine-flag-alias.js";
import { engineRemovedFlag } from "../engine-removed-flag.js";
import { fleetUnknownHost } from "../fleet-unknown-host.js";
import { fleetUnknownCard } from "../fleet-unknown-card.js";
import { fleetTpMismatch } from "../fleet-tp-mismatch.js";

export const checks: AnyCheck[] = [envParse, envDuplicateKey, envConflict, engineBadValue, engineFlagAlias, engineRemovedFlag, fleetUnknownHost, fleetUnknownCard, fleetTpMismatch];

/** Rules raised by the engine itself rather than by a check's run. */
export const rules: RuleMeta[] = [
  { id: "waiver/unknown-rule", severity: "error", description: "A Kvgate-Waive trailer names a rule id kvgate does not have (a typo would waive nothing)." },
];
