// radiance/pool-step: the host pool is resized in whole steps (1024 MiB by default), so a measured
// ledger can be attributed to a known step and an under-funded endpoint is raised one step at a time.
import { sizesKvByLedger } from "../model/engine.js";
import { defineCheck } from "./define.js";
import { changedPairs, num, lineOf } from "../radiance/settings.js";
import { formatInt } from "../units/bytes.js";
import { settingFix, withSetting } from "../model/setting-fix.js";
import { showFix, type ValueFix } from "../model/value-fix.js";
import { ttmLedgerOf } from "../radiance/ttm.js";
import type { Policy } from "../config/policy.js";
import type { Service } from "../model/types.js";

type Data = {
  host_pool_before_mib: number;
  host_pool_mib: number;
  change_mib: number;
  pool_step_mib: number;
  suggested_mib: number;
  key: string;
  fix?: ValueFix;
};

/**
 * The whole-step value nearest the change that TTM_MIN_MIB still covers (a step the ledger outgrows
 * would trade this warning for a ttm/ledger error): the nearest whole step (at least one), then the
 * step on the other side of the change, then the old value itself.
 */
function suggestion(s: Service, policy: Policy, was: number, change: number, step: number): number {
  const dir = Math.sign(change);
  const nearest = Math.max(1, Math.round(Math.abs(change) / step));
  const floor = Math.floor(Math.abs(change) / step);
  const other = nearest === floor ? floor + 1 : floor;
  const candidates = [nearest, other]
    .filter((n) => n > 0)
    .map((n) => was + dir * n * step)
    .filter((c) => c > 0);
  const covered = (r: ReturnType<typeof ttmLedgerOf>) =>
    !r.ok || r.ledger.ttm_min_mib === null || r.ledger.ttm_min_mib >= r.ledger.required_mib;
  // When TTM_MIN_MIB already falls short of today's value, ttm/ledger refuses either way (its own fix raises the floor).
  if (!covered(ttmLedgerOf(s, policy))) return candidates[0] ?? was;
  for (const c of candidates) if (covered(ttmLedgerOf(withSetting(s, "host_pool_mib", c), policy))) return c;
  return was;
}

export const radiancePoolStep = defineCheck({
  id: "radiance/pool-step",
  severity: "warning",
  description: "A change of HOST_POOL_MIB that is not a multiple of radiance.pool_step_mib.",
  messages: {
    step: (d: Data) =>
      `${d.key} changes by ${d.change_mib > 0 ? "+" : ""}${formatInt(d.change_mib)} ` +
      `MiB (${formatInt(d.host_pool_before_mib)} → ${formatInt(d.host_pool_mib)}), ` +
      `not a multiple of ${formatInt(d.pool_step_mib)}: change it in whole ` +
      `steps, e.g. ${d.fix ? showFix(d.fix) : `to ${formatInt(d.suggested_mib)}`}`,
  },
  run(ctx) {
    const step = ctx.policy.radiance.pool_step_mib;
    return changedPairs(ctx.before, ctx.after, (s) => sizesKvByLedger(ctx.pack, s)).flatMap(({ before, after }) => {
      const was = num(before, "host_pool_mib");
      const now = num(after, "host_pool_mib");
      if (was === undefined || now === undefined || was === now) return [];
      const change = Math.round((now - was) * 100) / 100;
      if (Math.abs(change / step - Math.round(change / step)) < 1e-9) return [];
      const suggested = suggestion(after, ctx.policy, was, change, step);
      const fix = settingFix(ctx.pack, after, "host_pool_mib", suggested);
      const data: Data = {
        host_pool_before_mib: was,
        host_pool_mib: now,
        change_mib: change,
        pool_step_mib: step,
        suggested_mib: suggested,
        key: after.settings.host_pool_mib?.origin.name ?? "HOST_POOL_MIB",
        ...(fix ? { fix } : {}),
      };
      return [{ message: "step" as const, service: after.name, file: after.file, line: lineOf(after, "host_pool_mib"), data }];
    });
  },
});
