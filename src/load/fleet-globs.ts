// The paths a fleet is made of, as globs: what loadFleet lists (so a listing costs the size of the
// fleet's folders, never of the whole repository), and every path whose change can change a verdict
// (what the hook's fast path must never skip).
import type { Policy } from "../config/policy.js";
import { CONFIG_NAMES } from "../config/load.js";
import { COMPOSE_GLOB } from "../compose/types.js";

/**
 * The ledgers pattern (`ledgers/{service}.yaml`) as a glob: everything under its literal folder, a
 * superset (service-index.ts picks the facts files among them by the pattern itself).
 */
export function ledgerGlob(ledgers: string): string {
  const head = ledgers.split("{service}")[0] ?? "";
  const folder = head.includes("/") ? head.slice(0, head.lastIndexOf("/")) : "";
  return folder === "" ? "**" : `${folder}/**`;
}

/** What loadFleet lists: env files under `services`, ledger facts, playbooks. */
export function listingGlobs(policy: Pick<Policy, "services" | "ledgers" | "playbooks">): string[] {
  return [policy.services, ledgerGlob(policy.ledgers), policy.playbooks];
}

/**
 * Every path whose staged change can change the fleet or the policy: the listing's globs, compose
 * files, the config itself, the TTM guards and the observed plateaus file.
 */
export function fleetChangeGlobs(policy: Pick<Policy, "services" | "ledgers" | "playbooks" | "ttm" | "observed">): string[] {
  return [
    ...listingGlobs(policy),
    COMPOSE_GLOB,
    ...CONFIG_NAMES,
    ...policy.ttm.guards,
    ...(policy.observed ? [policy.observed] : []),
  ];
}
