// engine/parallel: vLLM refuses at load a tensor-parallel size its model cannot be sharded by
// (attention heads not divisible by TP; KV heads neither divisible by TP nor dividing it; a
// linear-attention state that does not split), and a pipeline deeper than the model's layers. Without
// this a seat sized with "2.5 KV heads per card" passes and then never starts.
import { defineCheck, type Report } from "./define.js";
import { kvData, placeOf, vllmSeats } from "../kv/seat.js";
import { parallelProblems, ppPartitionOf } from "../kv/parallel.js";

const messages = {
  parallel: (d: { name: string; model: string; problem: string; fix: string }) => `${d.name}: ${d.model}: ${d.problem}; ${d.fix}`,
};

type R = Report<typeof messages>;

export const engineParallel = defineCheck({
  id: "engine/parallel",
  severity: "error",
  description:
    "A vLLM seat's tensor-parallel size does not shard its model (attention " +
    "or KV heads), its pipeline-parallel size exceeds the layers, or " +
    "VLLM_PP_LAYER_PARTITION does not split them: vLLM refuses to start.",
  messages,
  run(ctx) {
    return vllmSeats(ctx.after, ctx.policy, ctx.pack).flatMap((seat): R[] => {
      if (!seat.facts) return [];
      const partition = seat.service.settings.pp_layer_partition?.value;
      const partitionRead =
        typeof partition === "string" && partition.trim() !== "" && seat.pp > 1
          ? ppPartitionOf(partition.trim(), seat.pp, seat.facts.layers)
          : null;
      const problems = [
        ...parallelProblems(seat.facts, seat.tp, seat.pp),
        ...(partitionRead && !partitionRead.ok ? [partitionRead.problem] : []),
      ];
      return problems.map((p) => ({
        message: "parallel" as const,
        service: seat.name,
        ...(p.check === "pp-layers"
          ? placeOf(seat, "pp")
          : p.check === "pp-partition"
            ? placeOf(seat, "pp_layer_partition")
            : seat.service.origins.tp
              ? { file: seat.service.origins.tp.file, line: seat.service.origins.tp.line }
              : placeOf(seat)),
        data: {
          ...kvData(seat),
          name: seat.name,
          model: seat.service.model ?? seat.source?.spec.id ?? "",
          check: p.check,
          tp: seat.tp,
          pp: seat.pp,
          attention_heads: seat.facts?.attentionHeads ?? null,
          kv_heads: seat.facts?.kvHeads ?? null,
          problem: p.message,
          fix: p.fix,
        },
      }));
    });
  },
});
