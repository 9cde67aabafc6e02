// engine/removed-flag: an engine version that removed a flag refuses to start on it, so the deploy
// would fail at boot; rules/engines.yaml lists each removed flag, its env spelling and the version.
import { engineSpec } from "../model/engine.js";
import { defineCheck } from "./define.js";
import { compareVersions } from "../units/versions.js";

export const engineRemovedFlag = defineCheck({
  id: "engine/removed-flag",
  severity: "error",
  description: "A flag or env key the engine version removed (radiance ≥ 1.8.1 refuses --vram-weights-mib / --vram-kv-mib at start).",
  messages: {
    removed: (d: { service: string; spelled: string; engine: string; version: string; since: string; fix: string }) =>
      `${d.service}: ${d.spelled} was removed in ${d.engine} ${d.since} (this endpoint runs ${d.version}): the engine refuses to start on it; remove it and ${d.fix}`,
  },
  run(ctx) {
    return ctx.after.services.flatMap((s) => {
      const spec = engineSpec(ctx.pack, s.engine);
      if (!spec?.removed) return [];
      const versionKey = spec.version_key;
      const declared = versionKey ? s.env.entries.get(versionKey)?.value.trim() : undefined;
      const version = declared && declared !== "" ? declared : (spec.versions?.at(-1) ?? "0");
      return spec.removed.flatMap((r) => {
        if (compareVersions(version, r.since) < 0) return [];
        const hits = [
          ...s.env.flags.filter((f) => f.name === r.flag).map((f) => ({ spelled: f.spelled, file: f.file ?? s.file, line: f.line })),
          ...(r.env ? s.env.all.filter((e) => e.key === r.env).map((e) => ({ spelled: e.key, file: e.file ?? s.file, line: e.line })) : []),
        ];
        return hits.map((h) => ({
          message: "removed" as const,
          data: { service: s.name, spelled: h.spelled, engine: s.engine ?? "", version, since: r.since, fix: r.fix },
          file: h.file,
          line: h.line,
          service: s.name,
          key: h.spelled,
        }));
      });
    });
  },
});
