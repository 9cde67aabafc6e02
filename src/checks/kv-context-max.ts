// kv/context-max: a context beyond what the model was built for. Without YaRN the limit is the
// config's max_position_embeddings; with static YaRN it is original × factor.
import { defineCheck, type Report } from "./define.js";
import { kvData, placeOf, vllmSeats } from "../kv/seat.js";
import { outputCapOf, yarnOf } from "../kv/yarn.js";
import { formatInt } from "../kv/format.js";
import { settingFix } from "../model/setting-fix.js";
import { showFix, type ValueFix } from "../model/value-fix.js";

/**
 * `set MAX_MODEL_LEN=40960` in the file's own spelling (the flag when a flag sets it). An output cap
 * above the new context would make gen/output-cap refuse it, so then the cap goes first and no single
 * value is the fix.
 */
const lower = (d: { fix?: ValueFix; cap?: number }, to: number): string =>
  d.fix
    ? `set ${showFix(d.fix)}`
    : d.cap !== undefined
      ? `lower max_new_tokens (${formatInt(d.cap)}) to ${formatInt(to)} or less, then max_model_len to ${formatInt(to)}`
      : `lower max_model_len to ${formatInt(to)}`;

const messages = {
  native: (d: {
    name: string;
    max_model_len: number;
    model: string;
    max_context: number;
    factor_needed: number;
    fix?: ValueFix;
    cap?: number;
  }) =>
    `${d.name}: max_model_len ${formatInt(d.max_model_len)} > ${d.model}'s native ${formatInt(d.max_context)} (max_position_embeddings) and YaRN is off; ${lower(d, d.max_context)}, or turn on YaRN with --hf-overrides '{"rope_scaling":{"rope_type":"yarn","factor":${d.factor_needed},"original_max_position_embeddings":${d.max_context}}}'`,
  yarn: (d: {
    name: string;
    max_model_len: number;
    original: number;
    yarn_factor: number;
    limit: number;
    via: string;
    fix?: ValueFix;
    cap?: number;
  }) =>
    `${d.name}: max_model_len ${formatInt(d.max_model_len)} > YaRN's ${formatInt(d.original)} × ${d.yarn_factor} = ${formatInt(d.limit)} (${d.via}); ${lower(d, d.limit)}, or raise the YaRN factor`,
};

type R = Report<typeof messages>;

export const kvContextMax = defineCheck({
  id: "kv/context-max",
  severity: "error",
  description: "max_model_len exceeds the model's native maximum (without YaRN) or original × factor (with YaRN).",
  messages,
  run(ctx) {
    return vllmSeats(ctx.after, ctx.policy, ctx.pack).flatMap((seat): R[] => {
      const len = seat.maxModelLen;
      if (!seat.model || !seat.maxModelLenSet || len === null) return [];
      const yarn = yarnOf(seat.service);
      const fixTo = (n: number) => {
        const cap = outputCapOf(seat.service)?.cap;
        if (cap !== undefined && cap > n) return { cap };
        const fix = settingFix(ctx.pack, seat.service, "max_model_len", n);
        return fix ? { fix } : {};
      };
      const base = { ...kvData(seat), name: seat.name, model: seat.model.id, max_context: seat.model.max_context };
      if (!yarn) {
        if (len <= seat.model.max_context) return [];
        return [
          {
            message: "native" as const,
            service: seat.name,
            ...placeOf(seat, "max_model_len"),
            data: { ...base, factor_needed: Math.ceil(len / seat.model.max_context), ...fixTo(seat.model.max_context) },
          },
        ];
      }
      const original = yarn.original ?? seat.model.max_context;
      const limit = Math.floor(original * yarn.factor);
      if (len <= limit) return [];
      return [
        {
          message: "yarn" as const,
          service: seat.name,
          ...placeOf(seat, "max_model_len"),
          data: { ...base, original, yarn_factor: yarn.factor, limit, via: yarn.via, ...fixTo(limit) },
        },
      ];
    });
  },
});
