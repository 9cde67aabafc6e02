// radiance/demand-cut: lowering MAX_SEQS or MAX_MODEL_LEN of an under-funded endpoint raises the
// funded share without adding a token of cache; the lever is the host pool.
import { sizesKvByLedger } from "../model/engine.js";
import { defineCheck } from "./define.js";
import { changedPairs, ledgerEntry, num, lineOf } from "../radiance/settings.js";
import { fundingFromInputs, fundingInputsOf } from "../radiance/funding.js";
import { formatInt } from "../units/bytes.js";
import { settingFix } from "../model/setting-fix.js";
import { showFix, type ValueFix } from "../model/value-fix.js";

type Data = {
  tokens: number;
  demand_tokens: number;
  funded: number;
  cuts: { knob: string; before: number; after: number }[];
  pool_step_mib: number;
  pool_for_full_funding_mib: number | null;
  /** Putting the demand back: one value per cut knob (data.fix is the first). */
  fix?: ValueFix;
  fixes?: ValueFix[];
};

export const radianceDemandCut = defineCheck({
  id: "radiance/demand-cut",
  severity: "warning",
  description: "The change lowers MAX_SEQS or MAX_MODEL_LEN of a radiance endpoint that was funded below 100 %.",
  messages: {
    cut: (d: Data) =>
      `${d.cuts.map((c) => `${c.knob} ${formatInt(c.before)} → ${formatInt(c.after)}`).join(", ")} ` +
      `on an endpoint funded ${(d.funded * 100).toFixed(1)} % (${formatInt(d.tokens)} ` +
      `of ${formatInt(d.demand_tokens)} tokens): demand is not the lever; keep the ` +
      `demand${d.fixes ? ` (${d.fixes.map(showFix).join(", ")})` : d.fix ? ` (${showFix(d.fix)})` : ""} ` +
      `and raise HOST_POOL_MIB in ${formatInt(d.pool_step_mib)}-MiB ` +
      `steps${d.pool_for_full_funding_mib ? ` (about +${formatInt(d.pool_for_full_funding_mib)} MiB funds it all)` : ""}`,
  },
  run(ctx) {
    return changedPairs(ctx.before, ctx.after, (s) => sizesKvByLedger(ctx.pack, s)).flatMap(({ before, after }) => {
      const cuts: Data["cuts"] = [];
      for (const [name, knob] of [
        ["max_seqs", "MAX_SEQS"],
        ["max_model_len", "MAX_MODEL_LEN"],
      ] as const) {
        const was = num(before, name);
        const now = num(after, name);
        if (was !== undefined && now !== undefined && now < was) cuts.push({ knob, before: was, after: now });
      }
      if (cuts.length === 0) return [];
      const b = fundingInputsOf(before);
      const facts = ledgerEntry(ctx.before, before.name);
      const fallback = ledgerEntry(ctx.after, after.name);
      const use = facts?.ok ? facts.facts : fallback?.ok ? fallback.facts : undefined;
      if (!b.ok || !use) return [];
      const was = fundingFromInputs(b.inputs, use);
      if (!was.underfunded) return [];
      const data: Data = {
        tokens: was.tokens,
        demand_tokens: was.demand_tokens,
        funded: was.funded,
        cuts,
        pool_step_mib: ctx.policy.radiance.pool_step_mib,
        pool_for_full_funding_mib: was.pool_for_full_funding_mib,
      };
      const fixes = cuts.flatMap((c) => settingFix(ctx.pack, after, c.knob === "MAX_SEQS" ? "max_seqs" : "max_model_len", c.before) ?? []);
      if (fixes[0]) data.fix = fixes[0];
      if (fixes.length > 1) data.fixes = fixes;
      const first = cuts[0]?.knob === "MAX_SEQS" ? "max_seqs" : "max_model_len";
      return [{ message: "cut" as const, service: after.name, file: after.file, line: lineOf(after, first), data }];
    });
  },
});
