// engine/unknown-model: without the model's shape there is no KV arithmetic, so the KV rules would
// pass silently. Fail instead, and say how to teach the gate the model.
import { defineCheck, type Report } from "./define.js";
import { placeOf, vllmSeats } from "../kv/seat.js";

const messages = {
  unknown: (d: { name: string; model: string }) =>
    `${d.name}: model "${d.model}" is not in the catalog; add it under models: in kvgate.yaml from its config.json (e.g. ${d.model}: { layers: 36, kv_heads: 8, head_dim: 128, max_context: 40960, weights: 16GiB }), or set KV_BYTES_PER_TOKEN (and WEIGHTS_MIB) in the env file`,
  none: (d: { name: string }) =>
    `${d.name}: no model named: set MODEL (or --model, or the word after vllm serve) so the KV can be sized`,
};

type R = Report<typeof messages>;

export const engineUnknownModel = defineCheck({
  id: "engine/unknown-model",
  severity: "error",
  description: "A vLLM seat's model is not in the catalog or kvgate.yaml, and KV_BYTES_PER_TOKEN is not set.",
  messages,
  run(ctx) {
    return vllmSeats(ctx.after, ctx.policy, ctx.pack).flatMap((seat): R[] => {
      if (seat.model || seat.perToken) return [];
      const model = seat.service.model;
      if (model === null) return [{ message: "none" as const, service: seat.name, file: seat.service.file, line: 1, data: { name: seat.name, model: null } }];
      return [{ message: "unknown" as const, service: seat.name, ...placeOf(seat), data: { name: seat.name, model } }];
    });
  },
});
