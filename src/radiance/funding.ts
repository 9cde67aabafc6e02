// The funding formula of docs/radiance.md (radiance 1.8.1's budget resolver): how much of the
// demand MAX_SEQS × MAX_MODEL_LEN the cards can hold as KV. MiB unless a name says bytes; the KV
// terms are bytes because kv_bytes_per_token is. The smaller card is the budget.
import type { Service } from "../model/types.js";
import type { LedgerFacts } from "../parse/ledger-facts.js";
import { MiB } from "../units/bytes.js";
import { num } from "./settings.js";

export interface FundingInputs {
  gpu_headroom_mib: number;
  host_pool_mib: number;
  max_seqs: number;
  max_model_len: number;
}

/** The env keys funding reads, by setting name (for "set X" messages). */
export const FUNDING_KEYS: Record<keyof FundingInputs, string> = {
  gpu_headroom_mib: "GPU_HEADROOM_MIB",
  host_pool_mib: "HOST_POOL_MIB",
  max_seqs: "MAX_SEQS",
  max_model_len: "MAX_MODEL_LEN",
};

export interface CardFunding {
  index: number;
  card_total_mib: number;
  capacity_mib: number;
  elastic_mib: number;
  host_room_mib: number;
  expert_floor_mib: number;
  kv_cap_bytes: number;
  /** (elastic − expert_floor) in bytes, never below 0: what the card could give the cache. */
  supply_bytes: number;
  kv_bytes: number;
  tokens: number;
  /** `demand`: kv reached kv_cap; `card`: the card ran out first. */
  limited_by: "demand" | "card";
}

export interface Funding {
  inputs: FundingInputs;
  kv_bytes_per_token: number;
  block_size: number;
  plane_mib: number;
  spare_mib: number;
  unit_max_mib: number;
  file_tier_staging_mib: number;
  host_room_mib: number;
  expert_floor_mib: number;
  kv_cap_bytes: number;
  cards: CardFunding[];
  /** The card whose tokens are the endpoint's (the smallest). */
  budget_card: number;
  tokens: number;
  demand_tokens: number;
  /** tokens / demand_tokens (0..1). */
  funded: number;
  /** True when some card runs out before kv_cap: the cards, not demand, limit the cache. */
  underfunded: boolean;
  /** HOST_POOL_MIB at which the expert floor reaches 0: plane + 2 × unit_max + file_tier_staging. */
  useful_pool_mib: number;
  /** How much more HOST_POOL_MIB still lowers the floor (0: the host holds the whole plane). */
  pool_still_useful_mib: number;
  /** Extra HOST_POOL_MIB that would fund the whole demand on every card; null if the pool alone cannot. */
  pool_for_full_funding_mib: number | null;
}

export type FundingInputsRead = { ok: true; inputs: FundingInputs } | { ok: false; missing: string[] };

export function fundingInputsOf(service: Service): FundingInputsRead {
  const missing: string[] = [];
  const read = (name: keyof FundingInputs): number => {
    const v = num(service, name);
    if (v === undefined) missing.push(FUNDING_KEYS[name]);
    return v ?? 0;
  };
  const inputs: FundingInputs = {
    gpu_headroom_mib: read("gpu_headroom_mib"),
    host_pool_mib: read("host_pool_mib"),
    max_seqs: read("max_seqs"),
    max_model_len: read("max_model_len"),
  };
  return missing.length > 0 ? { ok: false, missing } : { ok: true, inputs };
}

/** The service's funding, or null when one of the four settings it needs is unset. */
export function fundingOf(service: Service, facts: LedgerFacts): Funding | null {
  const r = fundingInputsOf(service);
  return r.ok ? fundingFromInputs(r.inputs, facts) : null;
}

export function expertFloorMib(hostRoomMib: number, facts: LedgerFacts): number {
  return Math.min(facts.plane_mib + facts.spare_mib, Math.max(facts.plane_mib + 2 * facts.unit_max_mib - hostRoomMib, 0));
}

export function fundingFromInputs(inputs: FundingInputs, facts: LedgerFacts): Funding {
  const bpt = facts.kv_bytes_per_token;
  const block = facts.block_size;
  const staging = facts.file_tier_staging_mib;
  const hostRoom = inputs.host_pool_mib - staging;
  const floor = expertFloorMib(hostRoom, facts);
  const demand = inputs.max_seqs * inputs.max_model_len;
  const kvCap = demand * bpt;
  const cards: CardFunding[] = facts.cards.map((c) => {
    const capacity =
      c.card_total_mib -
      c.already_held_mib -
      c.drift_mib -
      inputs.gpu_headroom_mib -
      c.arena_mib -
      c.step_staging_mib -
      c.hw_queues_mib -
      c.prefetch_mib;
    const elastic = capacity - c.static_weights_mib;
    // A floor above elastic leaves the cache nothing; the engine would not boot a negative cache.
    const supply = Math.max(0, Math.floor((elastic - floor) * MiB));
    const kv = Math.min(kvCap, supply);
    return {
      index: c.index,
      card_total_mib: c.card_total_mib,
      capacity_mib: round2(capacity),
      elastic_mib: round2(elastic),
      host_room_mib: round2(hostRoom),
      expert_floor_mib: round2(floor),
      kv_cap_bytes: kvCap,
      supply_bytes: supply,
      kv_bytes: kv,
      tokens: Math.floor(kv / (bpt * block)) * block,
      limited_by: supply >= kvCap ? "demand" : "card",
    };
  });
  let budget = cards[0] as CardFunding;
  for (const c of cards) if (c.tokens < budget.tokens) budget = c;
  const useful = facts.plane_mib + 2 * facts.unit_max_mib + staging;
  return {
    inputs,
    kv_bytes_per_token: bpt,
    block_size: block,
    plane_mib: facts.plane_mib,
    spare_mib: facts.spare_mib,
    unit_max_mib: facts.unit_max_mib,
    file_tier_staging_mib: staging,
    host_room_mib: round2(hostRoom),
    expert_floor_mib: round2(floor),
    kv_cap_bytes: kvCap,
    cards,
    budget_card: budget.index,
    tokens: budget.tokens,
    demand_tokens: demand,
    funded: demand > 0 ? budget.tokens / demand : 0,
    underfunded: cards.some((c) => c.limited_by === "card"),
    useful_pool_mib: round2(useful),
    pool_still_useful_mib: round2(Math.max(0, useful - inputs.host_pool_mib)),
    pool_for_full_funding_mib: poolForFullFunding(inputs, facts, cards, floor),
  };
}

/**
 * Each MiB of pool lowers the floor by one MiB (once the floor is below plane + spare), and the
 * cache takes it; so the pool needed is the largest card deficit, if the floor has that much to give.
 */
function poolForFullFunding(inputs: FundingInputs, facts: LedgerFacts, cards: CardFunding[], floor: number): number | null {
  const deficit = Math.max(0, ...cards.map((c) => (c.kv_cap_bytes - c.supply_bytes) / MiB));
  if (deficit === 0) return 0;
  if (deficit > floor) return null;
  const targetRaw = floor - deficit;
  const neededPool = facts.plane_mib + 2 * facts.unit_max_mib - targetRaw + facts.file_tier_staging_mib;
  return Math.max(0, Math.ceil(neededPool - inputs.host_pool_mib - 1e-9));
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}

/** The `funding` object of `kvgate explain --format json` and the funding rules' data (docs/cli.md). */
export function fundingJson(f: Funding): Record<string, unknown> {
  return {
    tokens: f.tokens,
    demand_tokens: f.demand_tokens,
    funded: f.funded,
    budget_card: f.budget_card,
    kv_bytes_per_token: f.kv_bytes_per_token,
    block_size: f.block_size,
    host_room_mib: f.host_room_mib,
    expert_floor_mib: f.expert_floor_mib,
    kv_cap_bytes: f.kv_cap_bytes,
    useful_pool_mib: f.useful_pool_mib,
    pool_still_useful_mib: f.pool_still_useful_mib,
    pool_for_full_funding_mib: f.pool_for_full_funding_mib,
    inputs: f.inputs,
    cards: f.cards.map((c) => ({ ...c })),
  };
}
