// ttm/ledger: the serve script refuses to start below TTM_MIN_MIB, and a pin above the TTM limit
// kills the host; so TTM_MIN_MIB must cover the whole pinned-RAM ledger (contract section 7).
import { defineCheck, type Report } from "./define.js";
import { ledgerSizedServices, lineOf, num } from "../radiance/settings.js";
import { ttmData, ttmLedgerOf, type TtmData } from "../radiance/ttm.js";
import { formatInt } from "../units/bytes.js";

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
    return ledgerSizedServices(ctx.after, ctx.pack).flatMap((s): R[] => {
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
