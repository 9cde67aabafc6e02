// rules/engines.yaml: what each engine is — whether it holds GPUs, how its KV cache is sized, how its
// settings are spelled (env key, flags, aliases) and typed, its sizing knobs, the flags a version
// removed, and how to recognise it. The model reads engines through this table only (src/model/engine.ts),
// so the checks ask for traits ("sizes its KV per seat") and never name an engine.
import * as z from "zod";
import { VersionFact } from "./version-facts.js";

const SettingUnit = z.enum(["tokens", "bytes", "mib", "int", "ratio", "bool", "json", "string", "slots"]);
type SettingUnit = z.infer<typeof SettingUnit>;

export const SettingSpec = z.strictObject({
  /** The env key the gate reads. */
  env: z.string().optional(),
  /** Flags that set it, canonical spelling first (`--max-model-len`). */
  flags: z.array(z.string()).optional(),
  /** Accepted spellings that warn `engine/flag-alias`, mapped to the canonical flag. */
  aliases: z.array(z.string()).optional(),
  unit: SettingUnit,
  /** How a flag value is parsed: `vllm-int` = vLLM's human_readable_int (engine/bad-value otherwise). */
  flag_parser: z.enum(["vllm-int", "same"]).optional(),
  /** A sizing knob for knob/one-per-deploy. */
  knob: z.boolean().optional(),
  /** The value the engine uses when the file does not set it (a knob compares against it). */
  default: z.union([z.string(), z.number(), z.boolean()]).optional(),
  /** The same, read from kvgate.yaml's policy (`vllm.default_utilization`). */
  default_from: z.enum(["vllm.default_utilization"]).optional(),
  description: z.string(),
});
export type SettingSpec = z.infer<typeof SettingSpec>;

const RemovedSpec = z.strictObject({
  flag: z.string(),
  env: z.string().optional(),
  /** The first engine version that refuses it. */
  since: z.string(),
  fix: z.string(),
});

/** How the KV cache is sized: per seat, by a byte pin or a share of the card (vLLM's
 * --kv-cache-memory-bytes / --gpu-memory-utilization); or by the engine's boot ledger, funded from
 * what the card and the host pool leave (radiance: the funding formula and the TTM pin ledger). */
export const KvSizing = z.enum(["seat", "ledger"]);
export type KvSizing = z.infer<typeof KvSizing>;

const RecogniseSpec = z.strictObject({
  /** A word of a command key that names the engine (`vllm` in `vllm serve MODEL`). */
  command_words: z.array(z.string()).default([]),
  /** `serve MODEL` in a command key means this engine. */
  serves_model: z.boolean().default(false),
  /** Container images that run the engine (`vllm/vllm-openai:*`). */
  images: z.array(z.string()).default([]),
  /** Command lines that start it (`vllm serve`, `python -m vllm.entrypoints.openai.api_server`). */
  commands: z.array(z.string()).default([]),
  /** Flags only this engine has. */
  flags: z.array(z.string()).default([]),
});

const KnobsSpec = z.strictObject({
  /** Knobs beyond the settings marked `knob`: TP, and which cards (GPU) where the engine's list names them. */
  extra: z.array(z.enum(["tp", "gpus"])).default(["tp", "gpus"]),
  /** The settings that size the KV pool (knob/kv-and-placement). */
  kv_pool: z.array(z.string()).default([]),
});

export const EngineSpec = z.strictObject({
  description: z.string(),
  /** The engine runs on GPUs: its HOST and GPU are checked against the inventory. */
  gpus: z.boolean().default(false),
  kv_sizing: KvSizing.optional(),
  /** Each tensor-parallel rank takes one listed card, so GPU must list TP cards. */
  tp_needs_cards: z.boolean().default(false),
  knobs: KnobsSpec.default({ extra: ["tp", "gpus"], kv_pool: [] }),
  /** How to tell the engine when ENGINE is not set. Today kvgate uses command_words and
   * serves_model; images, commands and flags are validated and kept for recognising an engine from a
   * compose file or a command line. */
  recognise: RecogniseSpec.optional(),
  /** Known versions, oldest first; the newest is the default when the env file names none. */
  versions: z.array(z.string()).optional(),
  /** The env key holding the engine version. */
  version_key: z.string().optional(),
  settings: z.record(z.string(), SettingSpec),
  removed: z.array(RemovedSpec).optional(),
  /** What changed between versions, oldest entry first per fact (src/kv/vllm-versions.ts reads them). */
  version_facts: z.array(VersionFact).optional(),
});
export type EngineSpec = z.infer<typeof EngineSpec>;

export const EnginesFile = z.strictObject({ engines: z.record(z.string(), EngineSpec) });
export type EnginesSpec = z.infer<typeof EnginesFile>;
