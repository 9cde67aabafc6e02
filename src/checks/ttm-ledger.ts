// ttm/ledger: the serve script refuses to start below TTM_MIN_MIB, and a pin above the TTM limit
// kills the host; so TTM_MIN_MIB must cover the whole pinned-RAM ledger (contract section 7).
import { defineCheck, type Report } from "./define.js";
import { radianceServices, lineOf, num } from "../radiance/settings.js";
import { ttmLedgerOf, type TtmLedger } from "../radiance/ttm.js";
import { formatInt } from "../units/bytes.js";

export type TtmData = {
  ledger_mib: number;
  required_mib: number;
  ttm_min_mib: number | null;
  ttm_target_mib: number | null;
  slack_mib: number;
  terms: string;
}

/** `2 × 44,928 pool + 0 PLE + 4,096 prefix + 2,048 statics + 16 slots × 111.98` */
export function termsText(l: TtmLedger): string {
  const slots = l.slots_mode === "auto" ? `${formatInt(l.slots)} slots (auto: ${l.max_seqs ?? "?"} × (1 + ${l.checkpoint_retain}))` : `${formatInt(l.slots)} slots`;
  return `${l.tp} × ${formatInt(l.host_pool_mib)} pool + ${formatInt(l.ple_table_mib)} PLE + ${formatInt(l.prefix_cache_mib)} prefix + ${formatInt(l.statics_mib)} statics + ${slots} × ${l.slot_mib}`;
}

export function ttmData(l: TtmLedger): TtmData {
  return { ledger_mib: l.ledger_mib, required_mib: l.required_mib, ttm_min_mib: l.ttm_min_mib, ttm_target_mib: l.ttm_target_mib, slack_mib: l.slack_mib, terms: termsText(l) };
}

const fix = (d: TtmData) => `set TTM_MIN_MIB to ${formatInt(d.required_mib)} or more (and TTM_TARGET_MIB to ${formatInt(d.required_mib + d.slack_mib)} or more)`;

const messages = {
  below: (d: TtmData) => `TTM_MIN_MIB ${formatInt(d.ttm_min_mib ?? 0)} is below the pin ledger ${formatInt(d.ledger_mib)} MiB (${d.terms}): ${fix(d)}`,
  unset: (d: TtmData) => `TTM_MIN_MIB is unset but the endpoint pins ${formatInt(d.ledger_mib)} MiB of host RAM (${d.terms}): ${fix(d)}`,
};
type R = Report<typeof messages>;

export const ttmLedger = defineCheck({
  id: "ttm/ledger",
  severity: "error",
  description: "TTM_MIN_MIB of a radiance endpoint is below ceil(the TTM pin ledger), or unset while it pins a host pool.",
  messages,
  run(ctx) {
    return radianceServices(ctx.after).flatMap((s): R[] => {
      const r = ttmLedgerOf(s, ctx.policy);
      if (!r.ok) return [];
      const l = r.ledger;
      const base = { service: s.name, file: s.file, data: { ...ttmData(l) } };
      if (l.ttm_min_mib === null) {
        if (num(s, "host_pool_mib") === undefined) return [];
        return [{ ...base, message: "unset" as const, line: lineOf(s, "host_pool_mib") }];
      }
      if (l.ttm_min_mib >= l.required_mib) return [];
      return [{ ...base, message: "below" as const, line: lineOf(s, "ttm_min_mib") }];
    });
  },
});
