// radiance/headroom: the engine's settle floor is built from GPU_HEADROOM_MIB; below the policy's
// floor (48 MiB: the first rung measured decode-neutral) decode speed is untested.
import { defineCheck } from "./define.js";
import { ledgerSizedServices, num, lineOf } from "../radiance/settings.js";
import { formatInt } from "../units/bytes.js";
import { settingFix } from "../model/setting-fix.js";
import { showFix, type ValueFix } from "../model/value-fix.js";

const fixOf = (fix: ValueFix | null) => (fix ? { fix } : {});

export const radianceHeadroom = defineCheck({
  id: "radiance/headroom",
  severity: "error",
  description: "GPU_HEADROOM_MIB of a radiance endpoint is below radiance.headroom_floor_mib.",
  messages: {
    below: (d: { gpu_headroom_mib: number; headroom_floor_mib: number; key: string; fix?: ValueFix }) =>
      `${d.key} ${formatInt(d.gpu_headroom_mib)} is below the floor of ${formatInt(d.headroom_floor_mib)} ` +
      `MiB (the first rung measured decode-neutral): ` +
      `${d.fix ? `set ${showFix(d.fix)} or more` : `set ${d.key} to ${formatInt(d.headroom_floor_mib)} or more`}`,
  },
  run(ctx) {
    const floor = ctx.policy.radiance.headroom_floor_mib;
    return ledgerSizedServices(ctx.after, ctx.pack).flatMap((s) => {
      const headroom = num(s, "gpu_headroom_mib");
      if (headroom === undefined || headroom >= floor) return [];
      return [
        {
          message: "below" as const,
          service: s.name,
          file: s.file,
          line: lineOf(s, "gpu_headroom_mib"),
          data: {
            gpu_headroom_mib: headroom,
            headroom_floor_mib: floor,
            key: s.settings.gpu_headroom_mib?.origin.name ?? "GPU_HEADROOM_MIB",
            ...fixOf(settingFix(ctx.pack, s, "gpu_headroom_mib", Math.ceil(floor))),
          },
        },
      ];
    });
  },
});
