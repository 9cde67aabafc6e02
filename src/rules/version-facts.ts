// The schema of an engine's version facts in rules/engines.yaml: what changed between engine
// versions that the sizing rules must know (default utilization, flags added, what a setting
// means). Each entry names the first version it holds for (`since`; null when the release that
// brought it is not pinned) and the vLLM file or PR it comes from (`cite`).
import * as z from "zod";

export const VersionFactName = z.enum([
  "default_utilization",
  "kv_cache_memory_bytes_flag",
  "max_model_len_auto",
  "max_new_tokens",
  "kv_cache_dtypes",
  "cuda_graphs_in_budget",
  "hybrid_kv_cache_manager",
  "chunked_local_hybrid",
  "batch_defaults",
  "nccl_in_profile",
  "cuda_graphs",
  "mla_cache",
  "pp_request_scope",
  "gemma2_window_cap",
]);
export type VersionFactName = z.infer<typeof VersionFactName>;

export const VersionFact = z.strictObject({
  fact: VersionFactName,
  value: z.union([
    z.number(),
    z.boolean(),
    z.string(),
    z.array(z.string()),
    z.record(z.string(), z.union([z.number(), z.string(), z.array(z.string())])),
  ]),
  /** First version the value holds for; null: newer than every pinned entry, release not pinned. */
  since: z
    .string()
    .regex(/^\d+(\.\d+)*$/)
    .nullable(),
  cite: z.string().min(1),
  note: z.string().optional(),
});
export type VersionFact = z.infer<typeof VersionFact>;
