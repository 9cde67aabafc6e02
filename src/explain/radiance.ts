// What `kvgate explain <endpoint>` shows for a radiance service: the funding table and the TTM pin
// ledger, before and after the change, as text and as the JSON objects of docs/cli.md.
import type { Policy } from "../config/policy.js";
import type { FleetState, Service } from "../model/types.js";
import { formatLedgerProblem, ledgerPathOf } from "../parse/ledger-facts.js";
import { fundingJson } from "../radiance/funding.js";
import { fundingSides, type RadianceSide } from "../radiance/sides.js";
import { ttmLedgerOf, ttmJson, type TtmLedger } from "../radiance/ttm.js";
import { renderFunding, renderTtm } from "./radiance-tables.js";
import { ledgerEntry } from "../radiance/settings.js";

export interface RadianceExplain {
  /** `ttm { ledger_mib ttm_min_mib ttm_target_mib … terms }`, with `before` when there is one. */
  ttm: Record<string, unknown> | null;
  /** `funding { tokens demand_tokens funded cards … }`, with `before` when there is one. */
  funding: Record<string, unknown> | null;
  /** Why a part is missing (no ledger facts file, a bad one, an unset setting). */
  problems: string[];
  text: string;
}

export function explainRadiance(after: RadianceSide, before: RadianceSide | null, policy: Policy): RadianceExplain {
  const problems: string[] = [];
  const text: string[] = [];
  const entry = after.ledger;
  const ledgerFile = entry?.file ?? ledgerPathOf(policy.ledgers, after.service.name);
  if (!entry)
    problems.push(
      `no ledger facts file ${ledgerFile}: write it from the last boot ledger to see the funding (README#rule-radiance-ledger-facts)`,
    );
  else if (!entry.ok) problems.push(...entry.problems.map((p) => formatLedgerProblem(entry.file, p)));

  const f = fundingSides(after, before);
  if (entry?.ok && f.missing.length > 0) problems.push(`${after.service.file}: set ${f.missing.join(", ")} to compute the funding`);
  let funding: Record<string, unknown> | null = null;
  if (f.after) {
    funding = { ...fundingJson(f.after), ...(f.before ? { before: fundingJson(f.before) } : {}) };
    text.push(renderFunding(f.before, f.after, { pool_step_mib: policy.radiance.pool_step_mib }));
  }

  const tAfter = ttmLedgerOf(after.service, policy);
  const tBefore = before ? ttmLedgerOf(before.service, policy) : null;
  let ttm: Record<string, unknown> | null = null;
  if (tAfter.ok) {
    const b: TtmLedger | null = tBefore?.ok ? tBefore.ledger : null;
    ttm = { ...ttmJson(tAfter.ledger), ...(b ? { before: ttmJson(b) } : {}) };
    text.push(renderTtm(b, tAfter.ledger));
  } else
    problems.push(
      `${after.service.file}: set ${tAfter.missing.join(", ")} (CHECKPOINT_SLOTS auto counts MAX_SEQS) to compute the TTM pin ledger`,
    );

  if (problems.length > 0) text.push(problems.map((p) => `note: ${p}`).join("\n"));
  return { ttm, funding, problems, text: text.join("\n\n") };
}

/**
 * The explain view of one radiance service of a fleet state; `before` (another FleetState, e.g. HEAD
 * when explaining the working tree) adds the before column where the service exists there.
 */
export function explainRadianceService(
  service: Service,
  fleet: FleetState,
  policy: Policy,
  before: FleetState | null = null,
): RadianceExplain {
  const was = before?.services.find((s) => s.name === service.name && s.engine === service.engine);
  return explainRadiance(
    { service, ledger: ledgerEntry(fleet, service.name) },
    was ? { service: was, ledger: ledgerEntry(before, was.name) } : null,
    policy,
  );
}
