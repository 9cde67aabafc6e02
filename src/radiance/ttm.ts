// The TTM pin ledger of docs/radiance.md#ttm-ledger: the pinned host RAM a radiance endpoint holds, which the
// serve script's TTM_MIN_MIB gate must cover (a pin above the TTM limit kills the host at boot).
//
//   ledger = TP × HOST_POOL_MIB + PLE_TABLE_MIB + PREFIX_CACHE_MIB + STATICS_MIB + slots × slot_mib
//   slots  = CHECKPOINT_SLOTS, or for `auto` MAX_SEQS × (1 + CHECKPOINT_RETAIN)
//
// Why "a slot bump raises the ledger twice (state + store)": with `auto`, each sequence takes one
// slot for its live checkpoint state plus CHECKPOINT_RETAIN slots the retention policy keeps in the
// store, so one more MAX_SEQS adds (1 + retain) × slot_mib — with retain 1, two slots (223.96 MiB).
import type { Policy } from "../config/policy.js";
import type { Service } from "../model/types.js";
import { num } from "./settings.js";
import { formatInt } from "../units/bytes.js";

export interface TtmLedger {
  tp: number;
  host_pool_mib: number;
  /** TP × HOST_POOL_MIB: the pool is per rank. */
  pool_mib: number;
  ple_table_mib: number;
  prefix_cache_mib: number;
  statics_mib: number;
  /** `auto` when the slot count follows MAX_SEQS (also when CHECKPOINT_SLOTS is unset). */
  slots_mode: "auto" | "fixed";
  /** True when CHECKPOINT_SLOTS is unset and was counted as `auto`. */
  slots_defaulted: boolean;
  max_seqs: number | null;
  checkpoint_retain: number;
  slots: number;
  slot_mib: number;
  checkpoint_store_mib: number;
  /** The sum, to 2 decimals (97,791.68 for the contract's example). */
  ledger_mib: number;
  /** ceil(ledger): the least TTM_MIN_MIB that covers it. */
  required_mib: number;
  ttm_min_mib: number | null;
  ttm_target_mib: number | null;
  slack_mib: number;
}

export type TtmRead = { ok: true; ledger: TtmLedger } | { ok: false; missing: string[] };

/**
 * The ledger of a radiance service. Unset terms take the contract's defaults (PLE 0, prefix 0,
 * retain 0, statics from policy.ttm.statics_mib, pool 0). An unset CHECKPOINT_SLOTS counts as
 * `auto`: radiance's own default, and the larger reading, so the gate never under-counts a pin.
 */
export function ttmLedgerOf(service: Service, policy: Policy): TtmRead {
  const slotsSetting = service.settings.checkpoint_slots?.value;
  const fixed = typeof slotsSetting === "number" ? slotsSetting : null;
  const maxSeqs = num(service, "max_seqs") ?? null;
  const retain = num(service, "checkpoint_retain") ?? 0;
  if (fixed === null && maxSeqs === null) return { ok: false, missing: ["MAX_SEQS"] };
  const slots = fixed ?? (maxSeqs as number) * (1 + retain);
  const tp = service.tp;
  const hostPool = num(service, "host_pool_mib") ?? 0;
  const ple = num(service, "ple_table_mib") ?? 0;
  const prefix = num(service, "prefix_cache_mib") ?? 0;
  const statics = num(service, "statics_mib") ?? policy.ttm.statics_mib;
  const store = slots * policy.ttm.slot_mib;
  const ledger = round2(tp * hostPool + ple + prefix + statics + store);
  return {
    ok: true,
    ledger: {
      tp,
      host_pool_mib: hostPool,
      pool_mib: tp * hostPool,
      ple_table_mib: ple,
      prefix_cache_mib: prefix,
      statics_mib: statics,
      slots_mode: fixed === null ? "auto" : "fixed",
      slots_defaulted: slotsSetting === undefined,
      max_seqs: maxSeqs,
      checkpoint_retain: retain,
      slots,
      slot_mib: policy.ttm.slot_mib,
      checkpoint_store_mib: round2(store),
      ledger_mib: ledger,
      required_mib: Math.ceil(ledger),
      ttm_min_mib: num(service, "ttm_min_mib") ?? null,
      ttm_target_mib: num(service, "ttm_target_mib") ?? null,
      slack_mib: policy.ttm.slack_mib,
    },
  };
}

// 111.98 × 16 is 1791.6799999999998 in floating point; rounding to cents keeps ceil() honest.
function round2(n: number): number {
  return Math.round(n * 100) / 100;
}

/** The `ttm` object of `kvgate explain --format json` (docs/cli.md), terms included. */
export function ttmJson(l: TtmLedger): Record<string, unknown> {
  return {
    ledger_mib: l.ledger_mib,
    ttm_min_mib: l.ttm_min_mib,
    ttm_target_mib: l.ttm_target_mib,
    required_mib: l.required_mib,
    /** What TTM_TARGET_MIB must clear once TTM_MIN_MIB covers the ledger. */
    target_required_mib: Math.max(l.ttm_min_mib ?? 0, l.required_mib) + l.slack_mib,
    slack_mib: l.slack_mib,
    terms: {
      tp: l.tp,
      host_pool_mib: l.host_pool_mib,
      pool_mib: l.pool_mib,
      ple_table_mib: l.ple_table_mib,
      prefix_cache_mib: l.prefix_cache_mib,
      statics_mib: l.statics_mib,
      slots: l.slots,
      slots_mode: l.slots_mode,
      slot_mib: l.slot_mib,
      checkpoint_store_mib: l.checkpoint_store_mib,
    },
  };
}

/** The numbers every ttm/* finding carries (docs/cli.md), and the ledger's terms as text. */
export type TtmData = {
  ledger_mib: number;
  required_mib: number;
  ttm_min_mib: number | null;
  ttm_target_mib: number | null;
  slack_mib: number;
  terms: string;
};

/** `2 × 44,928 pool + 0 PLE + 4,096 prefix + 2,048 statics + 16 slots × 111.98` */
function termsText(l: TtmLedger): string {
  const slots =
    l.slots_mode === "auto"
      ? `${formatInt(l.slots)} slots (auto: ${l.max_seqs ?? "?"} × (1 + ${l.checkpoint_retain}))`
      : `${formatInt(l.slots)} slots`;
  return (
    `${l.tp} × ${formatInt(l.host_pool_mib)} pool + ` +
    `${formatInt(l.ple_table_mib)} PLE + ${formatInt(l.prefix_cache_mib)} prefix + ` +
    `${formatInt(l.statics_mib)} statics + ${slots} × ${l.slot_mib}`
  );
}

export function ttmData(l: TtmLedger): TtmData {
  return {
    ledger_mib: l.ledger_mib,
    required_mib: l.required_mib,
    ttm_min_mib: l.ttm_min_mib,
    ttm_target_mib: l.ttm_target_mib,
    slack_mib: l.slack_mib,
    terms: termsText(l),
  };
}
