// A radiance endpoint's funding on each side of a change, from its settings and its ledger facts file
// (docs/radiance.md#funding): what radiance/funding reports and what explain tabulates.
import type { Service } from "../model/types.js";
import type { LedgerEntry, LedgerFacts } from "../parse/ledger-facts.js";
import { fundingInputsOf, fundingFromInputs, type Funding } from "./funding.js";

export interface RadianceSide {
  service: Service;
  /** `FleetState.ledgerFacts[service.name]` of that side. */
  ledger: LedgerEntry | undefined;
}

/** Facts for one side; the before side falls back to the after side's facts (a ledger added with the change). */
function factsOf(side: RadianceSide | null, fallback?: LedgerFacts): LedgerFacts | undefined {
  const e = side?.ledger;
  return e?.ok ? e.facts : fallback;
}

export function fundingSides(
  after: RadianceSide,
  before: RadianceSide | null,
): { before: Funding | null; after: Funding | null; missing: string[] } {
  const afterFacts = factsOf(after);
  const a = fundingInputsOf(after.service);
  const fAfter = afterFacts && a.ok ? fundingFromInputs(a.inputs, afterFacts) : null;
  let fBefore: Funding | null = null;
  if (before) {
    const bFacts = factsOf(before, afterFacts);
    const b = fundingInputsOf(before.service);
    fBefore = bFacts && b.ok ? fundingFromInputs(b.inputs, bFacts) : null;
  }
  return { before: fBefore, after: fAfter, missing: a.ok ? [] : a.missing };
}
