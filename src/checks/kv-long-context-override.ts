// kv/long-context-override: VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 silences vLLM's own context limit,
// which is the check this gate exists to keep.
import { defineCheck } from "./define.js";
import { kvData, placeOf, vllmSeats } from "../kv/seat.js";

export const kvLongContextOverride = defineCheck({
  id: "kv/long-context-override",
  severity: "error",
  description: "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 lets max_model_len exceed the model's maximum unchecked.",
  messages: {
    escape: (d: { name: string }) =>
      `${d.name}: VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 lets vLLM run past the model's maximum context; ` +
      `remove it and size MAX_MODEL_LEN within the model's limit (or YaRN's original × factor)`,
  },
  run(ctx) {
    return vllmSeats(ctx.after, ctx.policy, ctx.pack).flatMap((seat) => {
      if (seat.service.settings.allow_long_max_model_len?.value !== true) return [];
      return [
        {
          message: "escape" as const,
          service: seat.name,
          ...placeOf(seat, "allow_long_max_model_len"),
          data: { ...kvData(seat), name: seat.name },
        },
      ];
    });
  },
});
