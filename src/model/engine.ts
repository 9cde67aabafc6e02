// The engine adapter: what the rest of kvgate may ask about a service's engine, answered from
// rules/engines.yaml. Checks and the domain math ask for traits (holds GPUs, sizes its KV per seat or
// by its boot ledger, ...) and never compare an engine's name, so a new engine is a block of that file.
import type { Policy } from "../config/policy.js";
import type { EngineSpec, KvSizing, SettingSpec } from "../rules/engines.js";
import type { RulesPack } from "../rules/pack.js";
import type { EngineRecognition, Origin, ParsedEnv, Service } from "./types.js";
import { lastFlag } from "./settings.js";
import { recogniseFrom } from "./recognise.js";

/** The rules pack's entry for the service's engine; undefined for none or an engine it does not know. */
export function engineSpec(pack: RulesPack, engine: string | null): EngineSpec | undefined {
  return engine === null ? undefined : pack.engines.engines[engine];
}

/** The engine runs on GPUs: its HOST and GPU are checked against the inventory. */
export function holdsGpus(pack: RulesPack, s: Pick<Service, "engine">): boolean {
  return engineSpec(pack, s.engine)?.gpus === true;
}

function kvSizingOf(pack: RulesPack, s: Pick<Service, "engine">): KvSizing | undefined {
  return engineSpec(pack, s.engine)?.kv_sizing;
}

/** The KV cache is sized per seat, by a byte pin or a share of the card (the kv/* rules, gpu/fits). */
export function sizesKvPerSeat(pack: RulesPack, s: Pick<Service, "engine">): boolean {
  return kvSizingOf(pack, s) === "seat";
}

/** The KV cache is funded by the engine's boot ledger (the radiance/* and ttm/* rules). */
export function sizesKvByLedger(pack: RulesPack, s: Pick<Service, "engine">): boolean {
  return kvSizingOf(pack, s) === "ledger";
}

/** Each tensor-parallel rank takes one listed card (fleet/tp-mismatch). */
export function tpNeedsCards(pack: RulesPack, s: Pick<Service, "engine">): boolean {
  return engineSpec(pack, s.engine)?.tp_needs_cards === true;
}

/** The knobs beyond the settings marked `knob` (TP, GPU); every engine's TP and GPU when unknown. */
export function extraKnobs(pack: RulesPack, engine: string | null): readonly ("tp" | "gpus")[] {
  return engineSpec(pack, engine)?.knobs.extra ?? ["tp", "gpus"];
}

/** The settings that size the engine's KV pool (knob/kv-and-placement). */
export function kvPoolSettings(pack: RulesPack, engine: string | null): readonly string[] {
  return engineSpec(pack, engine)?.knobs.kv_pool ?? [];
}

/** The value a setting has when the file does not set it; undefined when the engine gives none. */
export function settingDefault(spec: SettingSpec, policy: Policy): unknown {
  if (spec.default_from === "vllm.default_utilization") return policy.vllm.default_utilization;
  return spec.default;
}

/**
 * The engine a service runs when ENGINE is not set (docs/engines.md): recognised from its image, its
 * command line, a command word, the flags only one engine has, or `serve MODEL`, by the `recognise`
 * traits of rules/engines.yaml; the strongest kind of evidence decides. null engine when nothing
 * names one, or when one kind of evidence names two engines (`candidates` then lists them).
 */
export function recogniseEngine(pack: RulesPack, parsed: ParsedEnv): EngineRecognition {
  return recogniseFrom(pack.engines.engines, parsed);
}

/** The engines the user runs knowingly with the generic checks only (kvgate.yaml engines.generic). */
export function isGenericEngine(policy: Policy, engine: string | null): boolean {
  return engine !== null && policy.engines.generic.includes(engine);
}

/** Engine names of the rules pack, in its order. */
export function knownEngines(pack: RulesPack): string[] {
  return Object.keys(pack.engines.engines);
}

/** The keys that give a service cards (docs/engines.md). `none`/`void` hide every card. */
const GPU_KEYS = ["GPU", "CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES"];

/** Why the service needs an engine: the first GPU key or sizing setting it sets, with its place. */
export function needsEngine(s: Service, pack: RulesPack): { what: string; origin: Origin } | null {
  for (const key of GPU_KEYS) {
    const e = s.env.entries.get(key);
    if (e && !["", "none", "void"].includes(e.value.trim().toLowerCase()))
      return {
        what: `it holds a GPU (${key}=${e.value.trim()})`,
        origin: { file: e.file ?? s.file, line: e.line, source: "env", name: key },
      };
  }
  for (const spec of Object.values(pack.engines.engines)) {
    for (const setting of Object.values(spec.settings)) {
      if (!setting.knob) continue;
      const e = setting.env ? s.env.entries.get(setting.env) : undefined;
      if (e)
        return { what: `it sets ${e.key}, a sizing setting`, origin: { file: e.file ?? s.file, line: e.line, source: "env", name: e.key } };
      const f = lastFlag(s.env, [...(setting.flags ?? []), ...(setting.aliases ?? [])]);
      if (f)
        return {
          what: `it sets ${f.spelled}, a sizing setting`,
          origin: { file: f.file ?? s.file, line: f.line, source: "flag", name: f.spelled },
        };
    }
  }
  return null;
}
