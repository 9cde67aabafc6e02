// The radiance checks (contract sections 6 and 7): funding, the TTM pin ledger, one knob per deploy.
// Each lives in its own file under src/checks/ and is listed here.
import type { Check, Messages, RuleMeta } from "../define.js";
import { radianceLedgerFacts } from "../radiance-ledger-facts.js";
import { radianceHeadroom } from "../radiance-headroom.js";
import { radiancePoolStep } from "../radiance-pool-step.js";
import { radianceFunding } from "../radiance-funding.js";
import { radiancePoolNoEffect } from "../radiance-pool-no-effect.js";
import { radianceDemandCut } from "../radiance-demand-cut.js";
import { ttmLedger } from "../ttm-ledger.js";
import { ttmTarget } from "../ttm-target.js";
import { ttmCoChange } from "../ttm-co-change.js";
import { knobOnePerDeploy } from "../knob-one-per-deploy.js";
import { knobKvAndPlacement } from "../knob-kv-and-placement.js";

// Report<M> is invariant in M (keyof M), so a Check<M> needs widening to sit in a Check[] list.
const widen = <M extends Messages>(c: Check<M>): Check => c as unknown as Check;

export const checks: Check[] = [
  widen(knobKvAndPlacement),
  widen(knobOnePerDeploy),
  widen(radianceDemandCut),
  widen(radianceFunding),
  widen(radianceHeadroom),
  widen(radianceLedgerFacts),
  widen(radiancePoolNoEffect),
  widen(radiancePoolStep),
  widen(ttmCoChange),
  widen(ttmLedger),
  widen(ttmTarget),
];
/** Rules that are reported by a command rather than by a check's run (none in this group). */
export const rules: RuleMeta[] = [];
