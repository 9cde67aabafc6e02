// engine/removed-flag: an engine version that removed a flag refuses to start on it, so the deploy
// would fail at boot; rules/engines.yaml lists each removed flag, its env spelling and the version.
// The same for a flag the version does not have yet: vLLM before 0.10.2 has no --kv-cache-memory-bytes
// (its argument parser refuses it), so a pin there is a boot failure, not a pin.
import { engineSpec } from "../model/engine.js";
import { defineCheck, type CheckContext, type Report } from "./define.js";
import { compareVersions } from "../units/versions.js";
import { vllmSeats } from "../kv/seat.js";

const messages = {
  removed: (d: { service: string; spelled: string; engine: string; version: string; since: string; fix: string }) =>
    `${d.service}: ${d.spelled} was removed in ${d.engine} ${d.since} (this endpoint ` +
    `runs ${d.version}): the engine refuses to start on it; remove it and ${d.fix}`,
  "not-yet": (d: { service: string; spelled: string; version: string; since: string }) =>
    `${d.service}: ${d.spelled} does not exist in vLLM ${d.version} (it came in ` +
    `${d.since}): vLLM refuses to start on it; remove it and size the KV with ` +
    `--gpu-memory-utilization, or upgrade the image to vLLM ${d.since} or later`,
};

export const engineRemovedFlag = defineCheck({
  id: "engine/removed-flag",
  severity: "error",
  description:
    "A flag or env key the engine version removed (radiance ≥ 1.8.1 " +
    "refuses --vram-weights-mib / --vram-kv-mib at start), or does " +
    "not have yet (vLLM before 0.10.2: --kv-cache-memory-bytes).",
  messages,
  run(ctx) {
    // A byte pin on a vLLM without one (the version from VLLM_VERSION or the image tag).
    const notYet = vllmSeats(ctx.after, ctx.policy, ctx.pack).flatMap((seat): Report<typeof messages>[] => {
      const pin = seat.service.settings.kv_pin;
      if (!pin || seat.vf.kvCacheMemoryBytesFlag || seat.vf.version === null) return [];
      return [
        {
          message: "not-yet",
          data: { service: seat.name, spelled: pin.origin.name, version: seat.vf.version, since: "0.10.2" },
          file: pin.origin.file,
          line: pin.origin.line,
          service: seat.name,
          key: pin.origin.name,
        },
      ];
    });
    return [...notYet, ...removedFlags(ctx)];
  },
});

function removedFlags(ctx: CheckContext): Report<typeof messages>[] {
  {
    return ctx.after.services.flatMap((s): Report<typeof messages>[] => {
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
  }
}
