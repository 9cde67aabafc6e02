// ttm/co-change: the repo's guard (a bats test) recomputes the pin ledger and asserts TTM_MIN_MIB;
// a unit that moves the ledger must move TTM_MIN_MIB and the guards with it, or the seam fails on
// the host instead of in review.
import { sizesKvByLedger } from "../model/engine.js";
import { defineCheck } from "./define.js";
import { changedPairs, lineOf } from "../radiance/settings.js";
import { ttmLedgerOf } from "../radiance/ttm.js";
import { knobChanges, showChange } from "../radiance/knobs.js";
import { ttmData, type TtmData } from "../radiance/ttm.js";
import { formatInt } from "../units/bytes.js";

type Data = TtmData & {
  ledger_before_mib: number;
  ttm_min_before_mib: number | null;
  ttm_min_changed: boolean;
  missing_guards: string[];
  moved_by: string[];
};

export const ttmCoChange = defineCheck({
  id: "ttm/co-change",
  severity: "error",
  description: "A deploy unit moves the TTM pin ledger without changing TTM_MIN_MIB and touching every ttm.guards file.",
  messages: {
    missing: (d: Data) => {
      const need: string[] = [];
      if (!d.ttm_min_changed)
        need.push(
          `change TTM_MIN_MIB (${d.ttm_min_mib === null ? "unset" : formatInt(d.ttm_min_mib)}; ceil(ledger) is ${formatInt(d.required_mib)})`,
        );
      if (d.missing_guards.length > 0) need.push(`update ${d.missing_guards.join(", ")}`);
      const by = d.moved_by.length > 0 ? ` by ${d.moved_by.join(", ")}` : "";
      return `the pin ledger moves ${formatInt(d.ledger_before_mib)} → ${formatInt(d.ledger_mib)} MiB${by}: in the same commit, ${need.join(" and ")}`;
    },
  },
  run(ctx) {
    const touched = new Set(ctx.unit.files.flatMap((f) => (f.oldPath ? [f.path, f.oldPath] : [f.path])));
    return changedPairs(ctx.before, ctx.after, (s) => sizesKvByLedger(ctx.pack, s)).flatMap(({ before, after }) => {
      const b = ttmLedgerOf(before, ctx.policy);
      const a = ttmLedgerOf(after, ctx.policy);
      if (!a.ok || !b.ok || a.ledger.ledger_mib === b.ledger.ledger_mib) return [];
      const minChanged = a.ledger.ttm_min_mib !== b.ledger.ttm_min_mib;
      const missingGuards = ctx.policy.ttm.guards.filter((g) => !touched.has(g));
      if (minChanged && missingGuards.length === 0) return [];
      const movers = knobChanges(before, after, ctx.policy, ctx.pack).filter((c) => LEDGER_TERMS.has(c.setting));
      const data: Data = {
        ...ttmData(a.ledger),
        ledger_before_mib: b.ledger.ledger_mib,
        ttm_min_before_mib: b.ledger.ttm_min_mib,
        ttm_min_changed: minChanged,
        missing_guards: missingGuards,
        moved_by: movers.map(showChange),
      };
      const line = lineOf(after, "ttm_min_mib") ?? movers[0]?.line ?? null;
      return [{ message: "missing" as const, service: after.name, file: after.file, line, data }];
    });
  },
});

/** Settings the ledger reads (STATICS_MIB is not a knob, so it is named from the ledger alone). */
const LEDGER_TERMS = new Set([
  "tp",
  "host_pool_mib",
  "ple_table_mib",
  "prefix_cache_mib",
  "checkpoint_slots",
  "checkpoint_retain",
  "max_seqs",
]);
