// Tensor and pipeline parallelism as vLLM checks and applies them (docs/vllm-sizing.md#model-facts,
// engine/parallel):
// - vllm/config/model.py verify_with_parallel_config: total attention heads must be divisible by TP
//   ("Total number of attention heads (40) must be divisible by tensor parallel size (3).");
// - vllm/model_executor/layers/linear.py QKVParallelLinear: with TP ≥ KV heads each rank holds one
//   head and divide(tp, kv_heads) must be exact (replicas); with TP < KV heads divide(kv_heads, tp)
//   must be exact (vllm/distributed/utils.py ensure_divisibility asserts);
// - vllm/model_executor/layers/mamba/mamba_utils.py gated_delta_net_state_shape: divide(conv_dim, tp)
//   and divide(linear_num_value_heads, tp) for linear-attention layers;
// - vllm/distributed/utils.py get_pp_indices: layers split evenly over PP stages, the remainder
//   going to the stages before the last, from the second-to-last backwards; VLLM_PP_LAYER_PARTITION
//   (PR #6920) sets the counts instead.
// A seat needs TP × PP cards.
import type { ModelFacts } from "./facts.js";

export interface ParallelProblem {
  /** What vLLM checks: `attention-heads`, `kv-heads`, `linear-heads`, `pp-layers`, `size`. */
  check: "attention-heads" | "kv-heads" | "linear-heads" | "pp-layers" | "pp-partition" | "size";
  message: string;
  fix: string;
}

type ParallelFacts = Pick<ModelFacts, "attentionHeads" | "kvHeads" | "mla" | "linearState">;

/** The sharding rules alone: which of them a TP breaks (no advice, so the advice can call it). */
function shardingBreaks(facts: ParallelFacts, tp: number): Array<Omit<ParallelProblem, "fix">> {
  const out: Array<Omit<ParallelProblem, "fix">> = [];
  const heads = facts.attentionHeads;
  if (heads !== null && heads % tp !== 0) {
    out.push({
      check: "attention-heads",
      message: `${heads} attention heads are not divisible by tensor parallel size ${tp}: vLLM refuses to start (verify_with_parallel_config)`,
    });
  }
  const kv = facts.kvHeads;
  if (!facts.mla && kv !== null && (tp >= kv ? tp % kv !== 0 : kv % tp !== 0)) {
    out.push({
      check: "kv-heads",
      message: `${kv} KV heads neither divisible by tensor parallel size ${tp} nor dividing it: vLLM cannot shard them (QKVParallelLinear) and stops at load`,
    });
  }
  const ls = facts.linearState;
  if (ls) {
    const convDim = ls.keyHeadDim * ls.numKeyHeads * 2 + ls.valueHeadDim * ls.numValueHeads;
    if (ls.numValueHeads % tp !== 0 || ls.numKeyHeads % tp !== 0 || convDim % tp !== 0) {
      out.push({
        check: "linear-heads",
        message:
          `linear-attention heads (${ls.numKeyHeads} key, ${ls.numValueHeads} ` +
          `value) are not divisible by tensor parallel size ${tp}: ` +
          `vLLM cannot shard the state (gated_delta_net_state_shape)`,
      });
    }
  }
  return out;
}

/** TPs up to `upTo` that every sharding rule accepts, for the fix. */
export function validTensorParallel(facts: ParallelFacts, upTo = 16): number[] {
  const out: number[] = [];
  for (let tp = 1; tp <= upTo; tp++) if (shardingBreaks(facts, tp).length === 0) out.push(tp);
  return out;
}

export function parallelProblems(facts: ParallelFacts & { layers?: number }, tp: number, pp: number): ParallelProblem[] {
  if (!Number.isSafeInteger(tp) || tp < 1 || !Number.isSafeInteger(pp) || pp < 1) {
    return [
      {
        check: "size",
        message: `tensor parallel ${tp} × pipeline parallel ${pp}: both must be whole numbers ≥ 1`,
        fix: "set --tensor-parallel-size and --pipeline-parallel-size to whole numbers ≥ 1",
      },
    ];
  }
  const breaks = shardingBreaks(facts, tp);
  const ok = breaks.length > 0 ? validTensorParallel(facts).filter((t) => t > 1) : [];
  const fix = ok.length > 0 ? `use --tensor-parallel-size ${ok.join(", ")} (or 1)` : "use --tensor-parallel-size 1";
  const problems: ParallelProblem[] = breaks.map((b) => ({ ...b, fix }));
  if (facts.layers !== undefined && pp > facts.layers) {
    problems.push({
      check: "pp-layers",
      message: `pipeline parallel size ${pp} exceeds the model's ${facts.layers} layers: some stages would hold none`,
      fix: `use --pipeline-parallel-size ${facts.layers} or fewer`,
    });
  }
  return problems;
}

/**
 * VLLM_PP_LAYER_PARTITION as get_pp_indices reads it: comma-separated layer counts, one per stage,
 * summing to the model's layers; anything else makes vLLM raise ValueError at boot.
 */
export function ppPartitionOf(
  text: string,
  pp: number,
  layers: number,
): { ok: true; partition: number[] } | { ok: false; problem: ParallelProblem } {
  const parts = text.split(",").map((p) => p.trim());
  const fix = `set VLLM_PP_LAYER_PARTITION to ${pp} whole numbers summing to ${layers}, or remove it`;
  if (!parts.every((p) => /^[+-]?\d+$/.test(p)))
    return {
      ok: false,
      problem: { check: "pp-partition", message: `VLLM_PP_LAYER_PARTITION=${text}: vLLM refuses it (Invalid partition string)`, fix },
    };
  const partition = parts.map(Number);
  if (partition.length !== pp)
    return {
      ok: false,
      problem: {
        check: "pp-partition",
        message: `VLLM_PP_LAYER_PARTITION=${text} has ${partition.length} stages for pipeline parallel size ${pp}: vLLM refuses to start`,
        fix,
      },
    };
  const sum = partition.reduce((a, b) => a + b, 0);
  if (sum !== layers)
    return {
      ok: false,
      problem: {
        check: "pp-partition",
        message: `VLLM_PP_LAYER_PARTITION=${text} sums to ${sum}, the model has ${layers} layers: vLLM refuses to start`,
        fix,
      },
    };
  return { ok: true, partition };
}

/** get_pp_indices for every stage: [start, end) layer ranges; `partition` is VLLM_PP_LAYER_PARTITION read. */
export function ppStages(layers: number, pp: number, partition?: readonly number[] | null): Array<[number, number]> {
  const size = Math.max(1, pp);
  let partitions: number[];
  if (partition && partition.length === size && partition.reduce((a, b) => a + b, 0) === layers) {
    partitions = [...partition];
  } else {
    const per = Math.floor(layers / size);
    partitions = Array.from({ length: size }, () => per);
    const remaining = layers % size;
    for (let i = 2; i < remaining + 2; i++) {
      const at = size - i;
      partitions[at] = (partitions[at] ?? 0) + 1;
    }
  }
  const out: Array<[number, number]> = [];
  let start = 0;
  for (const n of partitions) {
    out.push([start, start + n]);
    start += n;
  }
  return out;
}

/** Cards one seat occupies. */
export function cardsPerSeat(tp: number, pp: number): number {
  return Math.max(1, tp) * Math.max(1, pp);
}

export interface StageWeights {
  /** Weights on the fullest card: its stage's layers (+ embedding or LM head) / TP. */
  perGpu: number;
  stages: number[];
  formula: string;
}

/**
 * Weights per card under TP × PP. Each stage holds its layers' share of the body; the first stage the
 * embedding, the last the LM head (one matrix when tied). Without vocab/hidden the body is the whole
 * figure and stages split it by layer count.
 */
export function stageWeights(
  weightsBytes: number,
  facts: Pick<ModelFacts, "layers" | "vocabSize" | "hiddenSize" | "tieWordEmbeddings">,
  tp: number,
  pp: number,
  partition?: readonly number[] | null,
): StageWeights {
  const stages = ppStages(facts.layers, pp, partition);
  const embed = facts.vocabSize !== null && facts.hiddenSize !== null ? facts.vocabSize * facts.hiddenSize * 2 : 0;
  // The checkpoint holds the LM head as its own matrix unless tied; a tied head on a later stage is a copy.
  const body = Math.max(0, weightsBytes - embed * (facts.tieWordEmbeddings ? 1 : 2));
  const last = stages.length - 1;
  const perStage = stages.map(([s, e], i) => {
    let w = (body * (e - s)) / facts.layers;
    if (i === 0) w += embed;
    if (i === last && !(facts.tieWordEmbeddings && last === 0)) w += embed;
    return Math.round(w / Math.max(1, tp));
  });
  const perGpu = Math.max(...perStage);
  return { perGpu, stages: perStage, formula: pp > 1 ? `largest PP stage of ${pp} / TP ${tp}` : `weights / TP ${tp}` };
}
