// The per-card memory table of the job summary, from the card usage (`cardUsage`, the numbers
// `gpu/fits` and `kvgate explain` use). A radiance card is sized by its own ledger (section 6), not by
// vLLM footprints, so its used/spare show as "—" rather than a misleading vLLM-only sum. With an
// observed file (kvgate.yaml `observed:`), each card's free memory at plateau shows beside them.
import type { Repo } from "../git/index.js";
import type { Policy } from "../config/policy.js";
import type { RulesPack } from "../rules/pack.js";
import type { CardRow } from "../report/github.js";
import type { FleetState } from "../model/types.js";
import { loadFleet } from "../load/fleet.js";
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

export async function cardRows(repo: Repo, head: string, policy: Policy, pack: RulesPack): Promise<CardRow[]> {
  const fleet = await loadFleet(await repo.snapshot(head), policy, pack);
  return cardRowsOf(cardUsage(fleet, policy, pack), fleet.observed);
}
