// rules/engines.yaml: how each engine's settings are spelled (env key, flags, aliases), their units,
// and the flags an engine version removed. The env pipeline reads settings through this table only.
import * as z from "zod";
import { VersionFact } from "./version-facts.js";

export const SettingUnit = z.enum(["tokens", "bytes", "mib", "int", "ratio", "bool", "json", "string", "slots"]);
export type SettingUnit = z.infer<typeof SettingUnit>;

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
  description: z.string(),
});
export type SettingSpec = z.infer<typeof SettingSpec>;

export const RemovedSpec = z.strictObject({
  flag: z.string(),
  env: z.string().optional(),
  /** The first engine version that refuses it. */
  since: z.string(),
  fix: z.string(),
});

export const EngineSpec = z.strictObject({
  description: z.string(),
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
