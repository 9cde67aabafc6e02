import { defineCheck } from "./define.js";

/** Compares dotted versions numerically: 1.10.0 > 1.9.0. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(".").map((n) => parseInt(n, 10) || 0);
  const pb = b.split(".").map((n) => parseInt(n, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

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
      const spec = s.engine ? ctx.pack.engines.engines[s.engine] : undefined;
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
