// engine/flag-alias: an alias the engine still accepts (vLLM's --kv-cache-memory for
// --kv-cache-memory-bytes) works today, but a reader searching for the canonical flag, the engine's
// docs and every message of the gate name the other spelling; an alias is also the first thing an
// engine release drops.
import { engineSpec } from "../model/engine.js";
import { defineCheck } from "./define.js";

export const engineFlagAlias = defineCheck({
  id: "engine/flag-alias",
  severity: "warning",
  description:
    "A flag spelled by an accepted alias (vLLM's `--kv-cache-memory`): works today, but the canonical spelling is what the docs and the gate's messages name.",
  messages: {
    alias: (d: { service: string; spelled: string; canonical: string }) => `${d.service}: ${d.spelled} is an alias; write ${d.canonical}`,
  },
  run(ctx) {
    return ctx.after.services.flatMap((s) => {
      const spec = engineSpec(ctx.pack, s.engine);
      if (!spec) return [];
      return Object.values(spec.settings).flatMap((setting) =>
        s.env.flags
          .filter((f) => setting.aliases?.includes(f.name))
          .map((f) => ({
            message: "alias" as const,
            data: { service: s.name, spelled: f.spelled, canonical: setting.flags?.[0] ?? f.name },
            file: f.file ?? s.file,
            line: f.line,
            service: s.name,
            key: f.name,
          })),
      );
    });
  },
});
