// engine/unknown-model: without the model's shape there is no KV arithmetic, so the KV rules would
// pass silently. Fail instead, and say how to teach the gate the model.
import { defineCheck, type Report } from "./define.js";
import { placeOf, vllmSeats } from "../kv/seat.js";
import { definitionOf } from "../model/types.js";

const messages = {
  unknown: (d: { name: string; model: string }) =>
    `${d.name}: model "${d.model}" is not in the catalog; add it under models: in kvgate.yaml ` +
    `from its config.json (e.g. ${d.model}: { layers: 36, kv_heads: 8, head_dim: 128, max_context: ` +
    `40960, weights: 16GiB }), or set KV_BYTES_PER_TOKEN (and WEIGHTS_MIB) in the env file`,
  config: (d: { name: string; config_file: string; problem: string; fix: string }) =>
    `${d.name}: its model's config ${d.config_file} cannot be read (${d.problem}), so its KV ` +
    `cannot be sized; ${d.fix}, or set KV_BYTES_PER_TOKEN (and WEIGHTS_MIB) in the env file`,
  none: (d: { name: string }) => `${d.name}: no model named: set MODEL (or --model, or the word after vllm serve) so the KV can be sized`,
};

type R = Report<typeof messages>;

export const engineUnknownModel = defineCheck({
  id: "engine/unknown-model",
  severity: "error",
  description:
    "A vLLM seat's model is not in kvgate.yaml, a committed config.json or the catalog (or its config.json cannot be read), and KV_BYTES_PER_TOKEN is not set.",
  messages,
  run(ctx) {
    return vllmSeats(ctx.after, ctx.policy, ctx.pack).flatMap((seat): R[] => {
      const p = seat.sourceProblem;
      if (p && !seat.perToken) {
        // A MODEL_CONFIG that names a missing file points at the env line; a bad config.json at the file.
        const at = p.field === "MODEL_CONFIG" ? placeOf(seat, "model_config") : { file: p.file, line: 1 };
        return [
          {
            message: "config" as const,
            service: seat.name,
            ...at,
            data: { name: seat.name, model: seat.service.model, config_file: p.file, field: p.field, problem: p.message, fix: p.fix },
          },
        ];
      }
      if (seat.model || seat.perToken) return [];
      const model = seat.service.model;
      if (model === null)
        return [{ message: "none" as const, service: seat.name, ...definitionOf(seat.service), data: { name: seat.name, model: null } }];
      return [{ message: "unknown" as const, service: seat.name, ...placeOf(seat), data: { name: seat.name, model } }];
    });
  },
});
