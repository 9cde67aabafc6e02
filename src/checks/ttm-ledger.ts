// ttm/ledger: the serve script refuses to start below TTM_MIN_MIB, and a pin above the TTM limit
// kills the host; so TTM_MIN_MIB must cover the whole pinned-RAM ledger (docs/radiance.md#ttm-ledger).
import { defineCheck, type Report } from "./define.js";
import { ledgerSizedServices, lineOf, num } from "../radiance/settings.js";
import { ttmData, ttmLedgerOf, type TtmData } from "../radiance/ttm.js";
import { formatInt } from "../units/bytes.js";
import { settingFix } from "../model/setting-fix.js";
import { showFix, type ValueFix } from "../model/value-fix.js";

type Data = TtmData & { fix?: ValueFix; fixes?: ValueFix[] };

/** Both values when the target would fall short of the new floor (ttm/target would refuse it), else the floor alone. */
const fix = (d: Data) => {
  const all = d.fixes ?? (d.fix ? [d.fix] : []);
  if (all.length === 0)
    return `set TTM_MIN_MIB to ${formatInt(d.required_mib)} or more (and TTM_TARGET_MIB to ${formatInt(d.required_mib + d.slack_mib)} or more)`;
  return `set ${all.map(showFix).join(" and ")} (or more)`;
};

const messages = {
  below: (d: Data) =>
    `TTM_MIN_MIB ${formatInt(d.ttm_min_mib ?? 0)} is below the pin ledger ${formatInt(d.ledger_mib)} MiB (${d.terms}): ${fix(d)}`,
  unset: (d: Data) => `TTM_MIN_MIB is unset but the endpoint pins ${formatInt(d.ledger_mib)} MiB of host RAM (${d.terms}): ${fix(d)}`,
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
      const min = settingFix(ctx.pack, s, "ttm_min_mib", l.required_mib);
      const target =
        l.ttm_target_mib !== null && l.ttm_target_mib < l.required_mib + l.slack_mib
          ? settingFix(ctx.pack, s, "ttm_target_mib", l.required_mib + l.slack_mib)
          : null;
      const fixes = [min, target].filter((f): f is ValueFix => f !== null);
      const base = {
        service: s.name,
        file: s.file,
        data: { ...ttmData(l), ...(min ? { fix: min } : {}), ...(fixes.length > 1 ? { fixes } : {}) },
      };
      if (l.ttm_min_mib === null) {
        if (num(s, "host_pool_mib") === undefined) return [];
        return [{ ...base, message: "unset" as const, line: lineOf(s, "host_pool_mib") }];
      }
      if (l.ttm_min_mib >= l.required_mib) return [];
      return [{ ...base, message: "below" as const, line: lineOf(s, "ttm_min_mib") }];
    });
  },
});
