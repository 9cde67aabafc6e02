// Hand-built services and fleet states for the radiance, ttm and knob rule tables.
// Settings are typed through the real unit readers (readValue), so `24K` and `24576` compare as the
// settings pipeline would make them; everything else is plain data.
import type { Config } from "../../src/config/schema.js";
import type { Policy } from "../../src/config/policy.js";
import { envText, policyFrom, standsFor } from "../helpers/fixture-source.js";
import type { Case } from "../helpers/rule-tester.js";
import type { FleetState, ParsedEnv, Service, Setting } from "../../src/model/types.js";
import { readValue } from "../../src/model/settings.js";
import { loadPack } from "../../src/rules/load.js";
import { ledgerEntryOf, type LedgerEntry } from "../../src/parse/ledger-facts.js";

export const pack = loadPack();

export function policyOf(user: Config = {}): Policy {
  return policyFrom(user);
}

/** The contract's ledger facts (section 6) as card 0, and a second, larger card (26.68 GiB). */
export function factsYaml(over: { plane_mib?: number; file_tier_staging_mib?: number } = {}): string {
  return `# frank-archon, boot ledger of radiance 1.8.1
cards:
  - { index: 0, card_total_mib: 26624, already_held_mib: 410, drift_mib: 64, arena_mib: 987,
      step_staging_mib: 256, hw_queues_mib: 96, prefetch_mib: 128, static_weights_mib: 9800 }
  - { index: 1, card_total_mib: 27320, already_held_mib: 402, drift_mib: 64, arena_mib: 987,
      step_staging_mib: 256, hw_queues_mib: 96, prefetch_mib: 128, static_weights_mib: 9800 }
plane_mib: ${over.plane_mib ?? 45700}
spare_mib: 512
unit_max_mib: 700
kv_bytes_per_token: 73728
block_size: 16
file_tier_staging_mib: ${over.file_tier_staging_mib ?? 0}
`;
}

export function ledgerOf(name: string, text = factsYaml()): LedgerEntry {
  return standsFor(ledgerEntryOf(text, `scripts/${name}.ledger.yaml`), text);
}

export function factsOf(text = factsYaml()) {
  const e = ledgerEntryOf(text, "scripts/x.ledger.yaml");
  if (!e.ok) throw new Error(JSON.stringify(e.problems));
  return e.facts;
}

/** The seeds' endpoint: headroom 96, pool 44,928 per rank, prefix 4,096, auto slots, 8 seqs, retain 1. */
export const FRANK: Record<string, string> = {
  ENGINE: "radiance",
  HOST: "fv-ml2",
  GPU: "0,1",
  TP: "2",
  RADIANCE_VERSION: "1.8.1",
  GPU_HEADROOM_MIB: "96",
  HOST_POOL_MIB: "44928",
  MAX_SEQS: "8",
  MAX_MODEL_LEN: "24576",
  PLACEMENT: "heat",
  PREFIX_CACHE_MIB: "4096",
  CHECKPOINT_SLOTS: "auto",
  CHECKPOINT_RETAIN: "1",
  TTM_MIN_MIB: "97792",
  TTM_TARGET_MIB: "98816",
};

export interface ServiceOptions {
  /** Flags as `--name value` pairs, read as the flag spelling (the flag wins over the env key). */
  flags?: Record<string, string>;
  file?: string;
}

/** A service from env keys (in order: the line is the key's position) and optional flags. */
export function service(name: string, env: Record<string, string | undefined>, options: ServiceOptions = {}): Service {
  const file = options.file ?? `scripts/${name}.env`;
  const keys = Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined);
  const lineOfKey = new Map(keys.map(([k], i) => [k, i + 1]));
  const engine = env.ENGINE ?? null;
  const spec = engine ? pack.engines.engines[engine] : undefined;
  const settings: Record<string, Setting> = {};
  const flagLine = keys.length + 1;
  for (const [sname, s] of Object.entries(spec?.settings ?? {})) {
    const flagName = (s.flags ?? []).find((f) => options.flags?.[f] !== undefined);
    if (flagName) {
      const raw = options.flags?.[flagName] as string;
      const r = readValue(s, raw, true);
      if (!r.ok) throw new Error(r.message);
      settings[sname] = {
        name: sname,
        raw,
        value: r.value,
        origin: { file, line: flagLine, source: "flag", name: flagName },
        shadowed: [],
      };
      continue;
    }
    const raw = s.env ? env[s.env] : undefined;
    if (raw === undefined || !s.env) continue;
    const r = readValue(s, raw, false);
    if (!r.ok) throw new Error(r.message);
    settings[sname] = {
      name: sname,
      raw,
      value: r.value,
      origin: { file, line: lineOfKey.get(s.env) ?? 0, source: "env", name: s.env },
      shadowed: [],
    };
  }
  const parsed: ParsedEnv = { file, entries: new Map(), all: [], flags: [], positionals: [], problems: [] };
  const origin = (key: string) =>
    lineOfKey.has(key) ? { file, line: lineOfKey.get(key) as number, source: "env" as const, name: key } : undefined;
  const origins: Service["origins"] = {};
  for (const [k, key] of [
    ["engine", "ENGINE"],
    ["host", "HOST"],
    ["gpus", "GPU"],
    ["tp", "TP"],
    ["model", "MODEL"],
  ] as const) {
    const o = origin(key);
    if (o) origins[k] = o;
  }
  return standsFor(
    {
      name,
      file,
      engine,
      host: env.HOST ?? null,
      gpus: env.GPU ? env.GPU.split(",").map(Number) : [],
      model: env.MODEL ?? null,
      tp: env.TP ? Number(env.TP) : 1,
      settings,
      env: parsed,
      origins,
      invalid: [],
      conflicts: [],
    },
    envText(keys, options.flags),
  );
}

export function frank(over: Record<string, string | undefined> = {}, options: ServiceOptions = {}): Service {
  return service("frank-archon", { ...FRANK, ...over }, options);
}

export function state(services: Service[], ledgers: Record<string, LedgerEntry> = {}): FleetState {
  return { services, tenants: [], cards: [], ledgerFacts: ledgers, paths: services.map((s) => s.file) };
}

/** A fleet with the one radiance endpoint and its facts file. */
export function frankState(over: Record<string, string | undefined> = {}, options: ServiceOptions = {}): FleetState {
  return state([frank(over, options)], { "frank-archon": ledgerOf("frank-archon") });
}

export interface CaseInput {
  before: FleetState | null;
  after: FleetState;
  /** The unit's changed files (default: the endpoint's env file). */
  files?: string[];
  policy?: Policy;
}

/** A rule-tester case: a staged change from `before` to `after`, or --all when there is no before. */
export function radianceCase(name: string, input: CaseInput): Case {
  return {
    name,
    fleet: input.after,
    before: input.before,
    kind: input.before ? "staged" : "all",
    changed: input.files ?? ["scripts/frank-archon.env"],
    policy: input.policy ?? policyOf(),
  };
}
