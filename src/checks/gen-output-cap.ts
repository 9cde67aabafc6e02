// gen/output-cap: without a default max_new_tokens a runaway reply runs to the context's end; a cap
// above max_model_len can never be reached and hides that there is no real cap.
import { defineCheck, type Report } from "./define.js";
import { kvData, placeOf, vllmSeats } from "../kv/seat.js";
import { outputCapOf } from "../kv/yarn.js";
import { formatInt } from "../kv/format.js";
import type { ValueFix } from "../model/value-fix.js";

const messages = {
  missing: (d: { name: string }) =>
    `${d.name}: no default output cap: a runaway reply runs to the ` +
    `end of the context; add --override-generation-config ` +
    `'{"max_new_tokens":N}' (an explicit max_tokens in a request still wins)`,
  ignored: (d: { name: string; version: string }) =>
    `${d.name}: vLLM ${d.version} ignores max_new_tokens in --override-generation-config ` +
    `(it became a cap with PR #12242, in 0.8.0): a runaway reply runs to the ` +
    `end of the context; upgrade vLLM, or cap replies in the clients' max_tokens`,
  above: (d: { name: string; cap: number; max_model_len: number; fix: ValueFix }) =>
    `${d.name}: output cap max_new_tokens ${formatInt(d.cap)} > max_model_len ` +
    `${formatInt(d.max_model_len)}: it can never apply; set ${d.fix.key} ` +
    `'${d.fix.value}' (max_new_tokens ${formatInt(d.max_model_len)} or less)`,
};

type R = Report<typeof messages>;

export const genOutputCap = defineCheck({
  id: "gen/output-cap",
  severity: "warning",
  description: "A vLLM seat has no default output cap (warning), or a cap above max_model_len (error).",
  messages,
  run(ctx) {
    return vllmSeats(ctx.after, ctx.policy, ctx.pack).flatMap((seat): R[] => {
      const cap = outputCapOf(seat.service);
      // What max_new_tokens means on this vLLM version: nothing, a server-wide ceiling, or a default.
      const data = { ...kvData(seat), name: seat.name, max_new_tokens_means: seat.vf.maxNewTokens };
      if (cap && seat.vf.maxNewTokens === "ignored") {
        return [
          {
            message: "ignored" as const,
            service: seat.name,
            file: cap.origin.file,
            line: cap.origin.line,
            data: { ...data, cap: cap.cap, version: seat.vf.version ?? "" },
          },
        ];
      }
      // A command line kvgate could not read may hold the cap: fleet/unsized refuses that seat instead.
      if (!cap) return seat.service.commandUnread ? [] : [{ message: "missing" as const, service: seat.name, ...placeOf(seat), data }];
      if (seat.maxModelLen === null || cap.cap <= seat.maxModelLen) return [];
      const fix = capFix(seat.service.settings.override_generation_config?.value, cap.origin, seat.maxModelLen);
      return [
        {
          message: "above" as const,
          severity: "error" as const,
          service: seat.name,
          file: cap.origin.file,
          line: cap.origin.line,
          data: { ...data, cap: cap.cap, fix },
        },
      ];
    });
  },
});

/**
 * The fix names the whole JSON value of the flag, with the cap lowered to the context and every other
 * generation default kept as written (the cap is a key inside one flag value, not a value of its own).
 */
function capFix(config: unknown, origin: { file: string; line: number; name: string }, maxModelLen: number): ValueFix {
  const record = typeof config === "object" && config !== null && !Array.isArray(config) ? (config as Record<string, unknown>) : {};
  const key = "max_new_tokens" in record ? "max_new_tokens" : "max_tokens" in record ? "max_tokens" : "max_new_tokens";
  return { file: origin.file, line: origin.line, key: origin.name, value: JSON.stringify({ ...record, [key]: maxModelLen }) };
}
