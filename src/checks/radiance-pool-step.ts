// radiance/pool-step: the host pool is resized in whole steps (1024 MiB by default), so a measured
// ledger can be attributed to a known step and an under-funded endpoint is raised one step at a time.
import { sizesKvByLedger } from "../model/engine.js";
import { defineCheck } from "./define.js";
import { changedPairs, num, lineOf } from "../radiance/settings.js";
import { formatInt } from "../units/bytes.js";

type Data = {
  host_pool_before_mib: number;
  host_pool_mib: number;
  change_mib: number;
  pool_step_mib: number;
  suggested_mib: number;
}

export const radiancePoolStep = defineCheck({
  id: "radiance/pool-step",
  severity: "warning",
  description: "A change of HOST_POOL_MIB that is not a multiple of radiance.pool_step_mib.",
  messages: {
    step: (d: Data) =>
      `HOST_POOL_MIB changes by ${d.change_mib > 0 ? "+" : ""}${formatInt(d.change_mib)} MiB (${formatInt(d.host_pool_before_mib)} → ${formatInt(d.host_pool_mib)}), not a multiple of ${formatInt(d.pool_step_mib)}: change it in whole steps, e.g. to ${formatInt(d.suggested_mib)}`,
  },
  run(ctx) {
    const step = ctx.policy.radiance.pool_step_mib;
    return changedPairs(ctx.before, ctx.after, (s) => sizesKvByLedger(ctx.pack, s)).flatMap(({ before, after }) => {
      const was = num(before, "host_pool_mib");
      const now = num(after, "host_pool_mib");
      if (was === undefined || now === undefined || was === now) return [];
      const change = Math.round((now - was) * 100) / 100;
      if (Math.abs(change / step - Math.round(change / step)) < 1e-9) return [];
      const steps = Math.sign(change) * Math.max(1, Math.round(Math.abs(change) / step));
      const data: Data = { host_pool_before_mib: was, host_pool_mib: now, change_mib: change, pool_step_mib: step, suggested_mib: was + steps * step };
      return [{ message: "step" as const, service: after.name, file: after.file, line: lineOf(after, "host_pool_mib"), data }];
    });
  },
});
