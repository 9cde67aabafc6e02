// radiance/pool-no-effect: more pinned host RAM buys cache only while experts remain on the card
// and demand is not yet met; past that, the extra pool is pinned for nothing.
import { sizesKvByLedger } from "../model/engine.js";
import { defineCheck } from "./define.js";
import { changedPairs, ledgerEntry, lineOf } from "../radiance/settings.js";
import { fundingFromInputs, fundingInputsOf } from "../radiance/funding.js";
import { formatInt } from "../units/bytes.js";
import { settingFix } from "../model/setting-fix.js";
import { showFix, type ValueFix } from "../model/value-fix.js";

type Data = {
  host_pool_before_mib: number;
  host_pool_mib: number;
  useful_pool_mib: number;
  expert_floor_mib: number;
  tokens: number;
  demand_tokens: number;
  funded: number;
  reason: "plane-on-host" | "demand-met" | "floor-capped";
  fix?: ValueFix;
};

const why: Record<Data["reason"], (d: Data) => string> = {
  "plane-on-host": (d) =>
    `the host already holds the whole plane (the expert floor is 0 from HOST_POOL_MIB ${formatInt(d.useful_pool_mib)})`,
  "demand-met": () => "the cache already holds the whole demand (kv is at kv_cap)",
  "floor-capped": (d) => `the expert floor stays capped at plane + spare (${formatInt(d.expert_floor_mib)} MiB) at this pool size`,
};

export const radiancePoolNoEffect = defineCheck({
  id: "radiance/pool-no-effect",
  severity: "warning",
  description: "HOST_POOL_MIB rose but the KV cache did not: the extra pinned RAM buys nothing.",
  messages: {
    none: (d: Data) =>
      `HOST_POOL_MIB rises ${formatInt(d.host_pool_before_mib)} → ${formatInt(d.host_pool_mib)} ` +
      `but no card's kv grows: ${why[d.reason](d)}; keep ` +
      `${d.fix ? showFix(d.fix) : `HOST_POOL_MIB at ${formatInt(d.host_pool_before_mib)}`}, the extra pinned RAM buys nothing`,
  },
  run(ctx) {
    return changedPairs(ctx.before, ctx.after, (s) => sizesKvByLedger(ctx.pack, s)).flatMap(({ before, after }) => {
      const entry = ledgerEntry(ctx.after, after.name);
      const a = fundingInputsOf(after);
      const b = fundingInputsOf(before);
      if (!entry?.ok || !a.ok || !b.ok || a.inputs.host_pool_mib <= b.inputs.host_pool_mib) return [];
      // Hold every other input at its after value, so a headroom change in the same unit cannot hide the pool's effect.
      const now = fundingFromInputs(a.inputs, entry.facts);
      const without = fundingFromInputs({ ...a.inputs, host_pool_mib: b.inputs.host_pool_mib }, entry.facts);
      const grew = now.cards.some((c) => c.kv_bytes > (without.cards.find((w) => w.index === c.index)?.kv_bytes ?? Infinity));
      if (grew) return [];
      const reason: Data["reason"] =
        without.expert_floor_mib === 0
          ? "plane-on-host"
          : without.cards.every((c) => c.limited_by === "demand")
            ? "demand-met"
            : "floor-capped";
      const data: Data = {
        host_pool_before_mib: b.inputs.host_pool_mib,
        host_pool_mib: a.inputs.host_pool_mib,
        useful_pool_mib: now.useful_pool_mib,
        expert_floor_mib: without.expert_floor_mib,
        tokens: now.tokens,
        demand_tokens: now.demand_tokens,
        funded: now.funded,
        reason,
      };
      const fix = settingFix(ctx.pack, after, "host_pool_mib", b.inputs.host_pool_mib);
      if (fix) data.fix = fix;
      return [{ message: "none" as const, service: after.name, file: after.file, line: lineOf(after, "host_pool_mib"), data }];
    });
  },
});
