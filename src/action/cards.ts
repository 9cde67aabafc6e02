// The per-card memory table of the job summary, from the same numbers `kvgate explain --format json`
// prints for each card. Cards whose used/spare the explain view does not compute yet show "—".
import type { Repo } from "../git/index.js";
import type { Policy } from "../config/policy.js";
import type { RulesPack } from "../rules/pack.js";
import type { CardRow } from "../report/github.js";
import { loadFleet } from "../engine/fleet.js";
import { fleetReaders } from "../engine/readers.js";
import { explainJson } from "../explain/index.js";

function num(v: unknown): number | null {
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}

export function cardRowsOf(gpus: readonly Record<string, unknown>[]): CardRow[] {
  return gpus.map((g) => {
    const total = num(g.total_bytes) ?? 0;
    const reserve = num(g.reserve_bytes);
    const row: CardRow = {
      host: String(g.host ?? "?"),
      index: num(g.index) ?? -1,
      total_bytes: total,
      used_bytes: num(g.used_bytes),
      spare_bytes: num(g.spare_bytes),
    };
    if (reserve !== null) row.reserve_bytes = reserve;
    if (Array.isArray(g.tenants)) row.tenants = g.tenants.map(String);
    return row;
  });
}

export async function cardRows(repo: Repo, head: string, policy: Policy, pack: RulesPack): Promise<CardRow[]> {
  const fleet = await loadFleet(await repo.snapshot(head), policy, pack, fleetReaders());
  return cardRowsOf(explainJson({ fleet, before: null, policy, pack, only: null }).gpus);
}
