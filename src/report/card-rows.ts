// The per-card memory table of the job summary, from the card usage (`cardUsage`, the numbers
// `gpu/fits` and `kvgate explain` use) of the fleet as it runs. A radiance card is sized by its own
// ledger (docs/radiance.md), not by vLLM footprints, so its used/spare show as "—" rather than a
// misleading vLLM-only sum. With an observed file (kvgate.yaml `observed:`), each card's free memory
// at plateau shows beside them.
import type { Policy } from "../config/policy.js";
import type { RulesPack } from "../rules/pack.js";
import type { CardRow } from "./github.js";
import type { FleetState } from "../model/types.js";
import { cardUsage, type CardUsage } from "../kv/card-usage.js";

/** `observed`: the fleet's observed file as the loader read it; each card's plateau goes beside its footprint. */
export function cardRowsOf(usages: readonly CardUsage[], observed?: FleetState["observed"]): CardRow[] {
  const cards = observed?.read?.ok ? observed.read.value.cards : null;
  return usages.map((l) => ({
    host: l.host,
    index: l.index,
    total_bytes: l.total_bytes,
    reserve_bytes: l.reserve_bytes,
    used_bytes: l.ledgerSized ? null : l.used_bytes,
    spare_bytes: l.ledgerSized ? null : l.spare_bytes,
    tenants: l.entries.map((e) => (e.kind === "other" ? `${e.name} (${e.engine ?? "no engine"})` : e.name)),
    ...(cards ? { plateau_free_bytes: cards.find((c) => c.host === l.host && c.index === l.index)?.plateau_free_bytes ?? null } : {}),
  }));
}

/** The rows of a fleet as it runs. */
export function cardRows(running: FleetState, policy: Policy, pack: RulesPack): CardRow[] {
  return cardRowsOf(cardUsage(running, policy, pack), running.observed);
}
