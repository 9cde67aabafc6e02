// kv/context-max: a context beyond the maximum vLLM derives for the model, which vLLM refuses at
// start (vllm/config/model.py _get_and_verify_max_len: "User-specified max_model_len … is greater
// than the derived max_model_len"). The derived maximum (src/kv/max-len.ts): the smallest max-length
// key of the config, capped to the sliding window when sliding window is off (--disable-sliding-window,
// or Gemma-2 on vLLM 0.5.1–0.6.4) and to the tokenizer's model_max_length, times the rope factor of
// every rope type but su/longrope/llama3 (YaRN from original_max_position_embeddings). A longer length
// passes up to the config's own model_max_length, as in vLLM.
import { defineCheck, type Report } from "./define.js";
import { acrossVersions, kvData, placeOf, vllmSeats, type VllmSeat } from "../kv/seat.js";
import { outputCapOf } from "../kv/yarn.js";
import { formatInt } from "../kv/format.js";
import { settingFix } from "../model/setting-fix.js";
import { showFix, type ValueFix } from "../model/value-fix.js";
import type { RulesPack } from "../rules/pack.js";

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

type Common = { name: string; max_model_len: number; fix?: ValueFix; cap?: number; versions_note?: string };

const messages = {
  native: (d: Common & { model: string; max_context: number; factor_needed: number }) =>
    `${d.name}: max_model_len ${formatInt(d.max_model_len)} > ${d.model}'s native ` +
    `${formatInt(d.max_context)} (max_position_embeddings) and YaRN is off; ${lower(d, d.max_context)}, ` +
    `or turn on YaRN with --hf-overrides ` +
    `'{"rope_scaling":{"rope_type":"yarn","factor":${d.factor_needed},"original_max_position_embeddings":${d.max_context}}}'${d.versions_note ?? ""}`,
  yarn: (d: Common & { original: number; yarn_factor: number; limit: number; via: string }) =>
    `${d.name}: max_model_len ${formatInt(d.max_model_len)} > YaRN's ` +
    `${formatInt(d.original)} × ${d.yarn_factor} = ${formatInt(d.limit)} (${d.via}); ` +
    `${lower(d, d.limit)}, or raise the YaRN factor${d.versions_note ?? ""}`,
  derived: (d: Common & { model: string; limit: number; via: string; why: string }) =>
    `${d.name}: max_model_len ${formatInt(d.max_model_len)} > the ` +
    `${formatInt(d.limit)} vLLM derives for ${d.model} (${d.via})${d.why}: ` +
    `vLLM refuses to start; ${lower(d, d.limit)}${d.versions_note ?? ""}`,
};

type R = Report<typeof messages>;

/** Why the derived maximum is below the config's own figure, when a cap set it. */
function capReason(key: string): string {
  if (key === "sliding_window") return ", capped to the sliding window because sliding window is off";
  if (key === "tokenizer model_max_length") return ", capped to the tokenizer's model_max_length";
  return "";
}

function contextMaxOf(seat: VllmSeat, pack: RulesPack): R | null {
  const len = seat.maxModelLen;
  const derived = seat.derived;
  if (!seat.model || !seat.facts || !seat.maxModelLenSet || len === null || !derived) return null;
  if (len <= derived.value) return null;
  // A config's own model_max_length lets a longer length through (Command-R).
  const mml = seat.facts.modelMaxLength;
  if (mml !== null && len <= mml) return null;
  const limit = Math.floor(derived.value);
  const fixTo = (n: number) => {
    const cap = outputCapOf(seat.service)?.cap;
    if (cap !== undefined && cap > n) return { cap };
    const fix = settingFix(pack, seat.service, "max_model_len", n);
    return fix ? { fix } : {};
  };
  const at = { service: seat.name, ...placeOf(seat, "max_model_len") };
  const base = {
    ...kvData(seat),
    name: seat.name,
    model: seat.model.id,
    max_context: seat.model.max_context,
    limit,
    derived_key: derived.key,
  };
  const yarn = seat.facts.rope.find((r) => r.type === "yarn");
  if (yarn && derived.key !== "sliding_window" && derived.key !== "tokenizer model_max_length") {
    const original = yarn.originalMax ?? seat.model.max_context;
    return { message: "yarn", ...at, data: { ...base, original, yarn_factor: derived.factor, via: derived.via, ...fixTo(limit) } };
  }
  if (derived.factor === 1 && derived.key === "max_position_embeddings" && limit === seat.model.max_context) {
    return { message: "native", ...at, data: { ...base, factor_needed: Math.ceil(len / limit), ...fixTo(limit) } };
  }
  return { message: "derived", ...at, data: { ...base, via: derived.via, why: capReason(derived.key), ...fixTo(limit) } };
}

export const kvContextMax = defineCheck({
  id: "kv/context-max",
  severity: "error",
  description:
    "max_model_len exceeds the maximum vLLM derives for the model (max-length key, sliding-window and tokenizer caps, rope factor; YaRN's original × factor).",
  messages,
  run(ctx) {
    return vllmSeats(ctx.after, ctx.policy, ctx.pack).flatMap((seat): R[] => acrossVersions(seat, (v) => contextMaxOf(v, ctx.pack)));
  },
});
