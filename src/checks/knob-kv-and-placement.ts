// knob/kv-and-placement: resizing the KV pool and moving the expert placement in one deploy makes
// the ledger's `experts` and `kv cache` lines move together, and the attribution dies. It holds for
// every engine, whatever knobs.enforce says.
import { defineCheck } from "./define.js";
import { changedPairs } from "../radiance/settings.js";
import { PLACEMENT_SETTING, knobChanges, showValue } from "../radiance/knobs.js";
import { kvPoolSettings } from "../model/engine.js";

type Data = {
  kv: { knob: string; before: string; after: string }[];
  placement: { before: string; after: string };
};

export const knobKvAndPlacement = defineCheck({
  id: "knob/kv-and-placement",
  severity: "error",
  description: "The KV pool and PLACEMENT of one service change in one deploy unit.",
  messages: {
    both: (d: Data) =>
      `the KV pool (${d.kv.map((c) => `${c.knob} ${c.before} → ${c.after}`).join(", ")}) ` +
      `and PLACEMENT (${d.placement.before} → ${d.placement.after}) change in one deploy: ` +
      `the ledger's experts and kv cache lines would move together; deploy them separately`,
  },
  run(ctx) {
    return changedPairs(ctx.before, ctx.after).flatMap(({ before, after }) => {
      const pool = new Set(kvPoolSettings(ctx.pack, after.engine));
      const changes = knobChanges(before, after, ctx.policy, ctx.pack);
      const placement = changes.find((c) => c.setting === PLACEMENT_SETTING);
      const kv = changes.filter((c) => pool.has(c.setting));
      if (!placement || kv.length === 0) return [];
      const data: Data = {
        kv: kv.map((c) => ({ knob: c.knob, before: showValue(c.before), after: showValue(c.after) })),
        placement: { before: showValue(placement.before), after: showValue(placement.after) },
      };
      return [{ message: "both" as const, service: after.name, file: after.file, line: placement.line, data }];
    });
  },
});
