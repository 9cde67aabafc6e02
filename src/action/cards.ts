// The per-card memory table of the job summary, from the card usage (`cardUsage`, the numbers
// `gpu/fits` and `kvgate explain` use). A radiance card is sized by its own ledger (section 6), not by
// vLLM footprints, so its used/spare show as "—" rather than a misleading vLLM-only sum.
import type { Repo } from "../git/index.js";
import type { Policy } from "../config/policy.js";
import type { RulesPack } from "../rules/pack.js";
import type { CardRow } from "../report/github.js";
import { loadFleet } from "../load/fleet.js";
import { cardUsage, type CardUsage } from "../kv/card-usage.js";

export function cardRowsOf(usages: readonly CardUsage[]): CardRow[] {
  return usages.map((l) => ({
    host: l.host,
    index: l.index,
    total_bytes: l.total_bytes,
    reserve_bytes: l.reserve_bytes,
    used_bytes: l.ledgerSized ? null : l.used_bytes,
    spare_bytes: l.ledgerSized ? null : l.spare_bytes,
    tenants: l.entries.map((e) => (e.kind === "other" ? `${e.name} (${e.engine ?? "no engine"})` : e.name)),
  }));
}

export async function cardRows(repo: Repo, head: string, policy: Policy, pack: RulesPack): Promise<CardRow[]> {
  const fleet = await loadFleet(await repo.snapshot(head), policy, pack);
  return cardRowsOf(cardUsage(fleet, policy, pack));
}
