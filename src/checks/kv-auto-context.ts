// kv/auto-context: `--max-model-len auto` (or -1) lets vLLM fit the context to the memory it finds at
// boot (kv_cache_utils._auto_fit_max_model_len), so kvgate cannot size the seat ahead: a notice that
// says what vLLM would pick from the KV kvgate expects. vLLM versions before `auto` (PR #29431)
// refuse the value at start: then it is an error.
import { defineCheck, type Report } from "./define.js";
import { kvData, placeOf, requestInputs, vllmSeats } from "../kv/seat.js";
import { estimateMaxModelLen } from "../kv/attention.js";
import { formatInt, size } from "../kv/format.js";

const messages = {
  auto: (d: { name: string; kv_bytes: number | null; expected_len: number | null }) =>
    `${d.name}: --max-model-len auto: vLLM fits the context to the KV it finds ` +
    `at boot, so kvgate cannot check ` +
    `it${d.expected_len !== null && d.kv_bytes !== null ? ` (with ${size(d.kv_bytes)} of KV it would pick about ${formatInt(d.expected_len)} tokens)` : ""}; ` +
    `set a number of tokens to have it checked`,
  refused: (d: { name: string; version: string }) =>
    `${d.name}: --max-model-len auto is refused by vLLM ${d.version} (auto came with PR #29431): the seat does not start; set a number of tokens`,
};

type R = Report<typeof messages>;

export const kvAutoContext = defineCheck({
  id: "kv/auto-context",
  severity: "notice",
  description:
    "A vLLM seat sets --max-model-len auto: its context is fitted at boot and cannot be sized ahead (an error on versions without auto).",
  messages,
  run(ctx) {
    return vllmSeats(ctx.after, ctx.policy, ctx.pack).flatMap((seat): R[] => {
      if (!seat.maxModelLenAuto) return [];
      const at = placeOf(seat, "max_model_len");
      if (!seat.vf.maxModelLenAuto && seat.vf.version !== null) {
        return [
          {
            message: "refused" as const,
            severity: "error" as const,
            service: seat.name,
            ...at,
            data: { ...kvData(seat), name: seat.name, version: seat.vf.version },
          },
        ];
      }
      const kv = seat.pinned ?? seat.estimate?.bytes ?? null;
      const upTo = seat.derived?.defaultLen ?? seat.model?.max_context ?? null;
      const expected =
        kv !== null && kv > 0 && seat.facts && upTo !== null ? estimateMaxModelLen(seat.facts, requestInputs(seat), kv, upTo) : null;
      return [
        {
          message: "auto" as const,
          service: seat.name,
          ...at,
          data: { ...kvData(seat), name: seat.name, kv_bytes: kv, expected_len: expected },
        },
      ];
    });
  },
});
