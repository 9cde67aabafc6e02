// What `vllm serve` budgets per scheduler step when the service sets no --max-num-batched-tokens /
// --max-num-seqs: the size of the profiler's dummy forward pass (the activation peak), the sampler's
// rows, the CUDA graphs' capture sizes and how much a sliding-window layer keeps beyond its window.
// - V0 (before 0.8.0; vllm/config.py SchedulerConfig.__post_init__ and EngineArgs.create_engine_config):
//   max(max_model_len, 2048) tokens, unless a context above 32,768 turned chunked prefill on (PR #6666:
//   not for sliding-window or multimodal models), then the chunked budget (512, 2048 from PR #10544);
//   256 sequences.
// - V1 (EngineArgs._set_default_args_v1, EngineArgs.get_batch_defaults since PR #28665): 8192 tokens
//   and 1024 sequences on the card classes the version's `large_classes` lists, else 2048 tokens and
//   that version's small-card sequences (rules/engines.yaml batch_defaults cites each step).
import { batchClassOf, type BatchClass, type CardTable } from "../rules/cards.js";
import type { BatchDefaults } from "./vllm-versions.js";

export interface BatchLimits {
  maxNumBatchedTokens: number;
  maxNumSeqs: number;
}

/** A card as get_batch_defaults sees it: rules/cards.yaml's class for a known name, else vLLM's own test. */
export function cardBatchClass(cards: CardTable, name: string | null | undefined, cudaTotalBytes: number): BatchClass {
  const known = name ? cards.lookup(name) : null;
  return known ? known.batch_class : batchClassOf(name ?? null, cudaTotalBytes);
}

export interface BatchInput {
  defaults: BatchDefaults;
  cardClass: BatchClass;
  maxModelLen: number;
  /** V0 turned chunked prefill on for long contexts only for models without sliding window that are not multimodal. */
  chunkedEligible: boolean;
}

export function defaultBatchLimits(i: BatchInput): BatchLimits {
  const d = i.defaults;
  if (d.engine === "v0") {
    const chunked = d.chunked_tokens !== undefined && i.maxModelLen > 32_768 && i.chunkedEligible;
    return { maxNumBatchedTokens: chunked ? (d.chunked_tokens as number) : Math.max(i.maxModelLen, 2048), maxNumSeqs: d.seqs };
  }
  return d.large_classes.includes(i.cardClass)
    ? { maxNumBatchedTokens: d.large_tokens, maxNumSeqs: d.large_seqs }
    : { maxNumBatchedTokens: d.small_tokens, maxNumSeqs: d.small_seqs };
}
