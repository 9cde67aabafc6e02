// Hand-built services and fleet states for the radiance, ttm and knob rule tables
// (test/helpers/hand-built-service.ts types their settings as the settings pipeline does, so `24K` and
// `24576` compare equal); everything else is plain data.
import type { Config } from "../../src/config/schema.js";
import type { Policy } from "../../src/config/policy.js";
import { policyFrom, standsFor } from "../helpers/fixture-source.js";
import { handBuiltService } from "../helpers/hand-built-service.js";
import type { Case } from "../helpers/rule-tester.js";
import type { FleetState, Service } from "../../src/model/types.js";
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
  return handBuiltService(pack, name, env, options.flags, options.file);
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
