// Small readers over a service's typed settings, and the pairing of a service before and after a
// change, shared by the radiance, ttm and knob checks.
import type { FleetState, Service } from "../model/types.js";
import type { LedgerEntry } from "../parse/ledger-facts.js";
import type { RulesPack } from "../rules/pack.js";
import { sizesKvByLedger } from "../model/engine.js";

/** A numeric setting's value, or undefined when unset (the settings pipeline already typed it). */
export function num(service: Service, name: string): number | undefined {
  const v = service.settings[name]?.value;
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

/** Where a setting was written, falling back to the service's file. */
export function lineOf(service: Service, name: string): number | null {
  return service.settings[name]?.origin.line ?? null;
}

/** The services whose KV cache the engine's boot ledger funds (radiance endpoints). */
export function ledgerSizedServices(state: FleetState, pack: RulesPack): Service[] {
  return state.services.filter((s) => sizesKvByLedger(pack, s));
}

export interface ServicePair {
  before: Service;
  after: Service;
}

/**
 * Services present on both sides of the change with the same engine. A service that exists only
 * after (a new file) has no before, and one whose engine changed is a different endpoint: neither
 * can move a knob or a ledger.
 */
export function changedPairs(before: FleetState | null, after: FleetState, only?: (s: Service) => boolean): ServicePair[] {
  if (!before) return [];
  const out: ServicePair[] = [];
  for (const a of after.services) {
    if (only && !only(a)) continue;
    const b = before.services.find((s) => s.name === a.name);
    if (b && b.engine === a.engine) out.push({ before: b, after: a });
  }
  return out;
}

/** The stored ledger entry of a service (see LedgerEntry), or undefined when it has no facts file. */
export function ledgerEntry(state: FleetState | null, name: string): LedgerEntry | undefined {
  return state?.ledgerFacts[name];
}
