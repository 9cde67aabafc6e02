import { defineCheck } from "./define.js";

export const engineBadValue = defineCheck({
  id: "engine/bad-value",
  severity: "error",
  description: "A value the engine (or the gate) cannot read in its unit, e.g. `--kv-cache-memory-bytes 22GiB`, which vLLM refuses at boot.",
  messages: {
    bad: (d: { service: string; name: string; message: string }) => `${d.service}: ${d.name}: ${d.message}`,
  },
  run(ctx) {
    return ctx.after.services.flatMap((s) =>
      s.invalid.map((v) => ({
        message: "bad" as const,
        data: { service: s.name, name: v.origin.name, setting: v.name, raw: v.raw, message: v.message },
        file: v.origin.file,
        line: v.origin.line,
        service: s.name,
        key: `${v.name}:${v.origin.name}`,
      })),
    );
  },
});
