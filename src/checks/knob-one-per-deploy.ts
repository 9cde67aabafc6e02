// knob/one-per-deploy: the boot ledger referees a resize only when one knob moved; two knobs in one
// deploy leave no way to tell which moved the carve (docs/radiance.md#knobs).
import { defineCheck } from "./define.js";
import { changedPairs } from "../radiance/settings.js";
import { knobChanges, showValue } from "../radiance/knobs.js";

type Data = {
  knobs: string[];
  changes: { knob: string; before: unknown; after: unknown }[];
  engine: string;
};

export const knobOnePerDeploy = defineCheck({
  id: "knob/one-per-deploy",
  severity: "error",
  description: "More than one sizing knob of one service changes in one deploy unit (for the engines in knobs.enforce).",
  messages: {
    many: (d: Data) =>
      `${d.knobs.length} sizing knobs change in one deploy ` +
      `(${d.changes.map((c) => `${c.knob} ${showValue(c.before)} → ${showValue(c.after)}`).join(", ")}): change one knob per ` +
      `deploy; split this into ${d.knobs.length} commits and check them with --unit commit`,
  },
  run(ctx) {
    const enforce = new Set(ctx.policy.knobs.enforce);
    return changedPairs(ctx.before, ctx.after).flatMap(({ before, after }) => {
      if (!after.engine || !enforce.has(after.engine)) return [];
      const changes = knobChanges(before, after, ctx.policy, ctx.pack);
      if (changes.length < 2) return [];
      const data: Data = {
        knobs: changes.map((c) => c.knob),
        // The values themselves (numbers stay numbers); the message formats them.
        changes: changes.map((c) => ({ knob: c.knob, before: c.before ?? null, after: c.after ?? null })),
        engine: after.engine,
      };
      return [
        { message: "many" as const, service: after.name, file: after.file, line: changes.find((c) => c.line !== null)?.line ?? null, data },
      ];
    });
  },
});
