// engine/bad-value: a value read in a unit its key does not take is a boot failure waiting for the
// deploy: vLLM parses --kv-cache-memory-bytes and --max-model-len as a plain integer or a number with
// k/m/g/t (decimal) or K/M/G/T (binary, whole numbers only), so `22GiB`, `22GB` and `22.5G` stop it at
// start, and a utilization outside 0..1 is refused too. When the same quantity can be written in the
// unit the key takes, the fix is that value.
import { defineCheck } from "./define.js";
import { engineSpec } from "../model/engine.js";
import { convertedValue } from "../fix/unit-value.js";
import { showFix, type ValueFix } from "../model/value-fix.js";

export const engineBadValue = defineCheck({
  id: "engine/bad-value",
  severity: "error",
  description:
    "A value the engine (or the gate) cannot read in its unit, e.g. `--kv-cache-memory-bytes 22GiB`, which vLLM refuses at boot.",
  messages: {
    bad: (d: { service: string; name: string; message: string; fix?: ValueFix }) =>
      `${d.service}: ${d.name}: ${d.message}${d.fix ? `; set ${showFix(d.fix)} (the same quantity in the unit it takes)` : ""}`,
  },
  run(ctx) {
    return ctx.after.services.flatMap((s) =>
      s.invalid.map((v) => {
        // A quantity in a unit the key does not take (22GiB for bytes) is converted: the fix is a value.
        const spec = engineSpec(ctx.pack, s.engine)?.settings[v.name];
        const value = spec ? convertedValue(spec, v.raw, v.origin.source === "flag") : null;
        const fix: ValueFix | undefined =
          value === null ? undefined : { file: v.origin.file, line: v.origin.line, key: v.origin.name, value };
        return {
          message: "bad" as const,
          data: { service: s.name, name: v.origin.name, setting: v.name, raw: v.raw, message: v.message, ...(fix ? { fix } : {}) },
          file: v.origin.file,
          line: v.origin.line,
          service: s.name,
          key: `${v.name}:${v.origin.name}`,
        };
      }),
    );
  },
});
