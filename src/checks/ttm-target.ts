// ttm/target: ttm-preflight raises the TTM limit to TTM_TARGET_MIB, so the target must clear the
// floor with slack or the first boot after a resize trips the serve script's own gate.
import { defineCheck } from "./define.js";
import { ledgerSizedServices, lineOf } from "../radiance/settings.js";
import { ttmLedgerOf } from "../radiance/ttm.js";
import { ttmData, type TtmData } from "../radiance/ttm.js";
import { formatInt } from "../units/bytes.js";
import { settingFix } from "../model/setting-fix.js";
import { showFix, type ValueFix } from "../model/value-fix.js";

export const ttmTarget = defineCheck({
  id: "ttm/target",
  severity: "error",
  description: "TTM_TARGET_MIB of a radiance endpoint is below TTM_MIN_MIB + ttm.slack_mib.",
  messages: {
    low: (d: TtmData & { target_required_mib: number; fix?: ValueFix }) =>
      `TTM_TARGET_MIB ${formatInt(d.ttm_target_mib ?? 0)} is below TTM_MIN_MIB ` +
      `${formatInt(d.ttm_min_mib ?? 0)} + ${formatInt(d.slack_mib)} MiB slack: ` +
      `${d.fix ? `set ${showFix(d.fix)} or more` : `set TTM_TARGET_MIB to ${formatInt(d.target_required_mib)} or more`}`,
  },
  run(ctx) {
    return ledgerSizedServices(ctx.after, ctx.pack).flatMap((s) => {
      const r = ttmLedgerOf(s, ctx.policy);
      if (!r.ok) return [];
      const { ttm_min_mib: min, ttm_target_mib: target, slack_mib: slack } = r.ledger;
      if (min === null || target === null || target >= min + slack) return [];
      const fix = settingFix(ctx.pack, s, "ttm_target_mib", Math.ceil(min + slack));
      const data = { ...ttmData(r.ledger), target_required_mib: min + slack, ...(fix ? { fix } : {}) };
      return [{ message: "low" as const, service: s.name, file: s.file, line: lineOf(s, "ttm_target_mib"), data }];
    });
  },
});
