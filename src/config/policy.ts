// The resolved policy: kvgate.yaml merged over the defaults of rules/policy.yaml, byte quantities
// turned into integers. Checks read this, never the raw YAML.
import type { CardLookup, Config, ModelOverrideInput, ModelSpecInput } from "./schema.js";
import { bytesOf } from "../units/bytes.js";

export interface ModelSpec {
  /** The catalog key, e.g. `Qwen/Qwen3-8B`. */
  id: string;
  layers: number;
  kv_heads?: number;
  head_dim?: number;
  hidden_size?: number;
  attention_heads?: number;
  kv_lora_rank?: number;
  qk_rope_head_dim?: number;
  qk_nope_head_dim?: number;
  tokenizer_max_length?: number;
  max_context: number;
  yarn?: { factor: number; original_max_position_embeddings: number };
  weights_bytes: number;
  dtype: "bfloat16" | "float16" | "float32" | "fp8";
  aliases: string[];
  note?: string;
}

/** A `models:` entry of kvgate.yaml: only the fields the user wrote (merged over the catalog's entry by src/kv/model-source.ts). */
export interface UserModel {
  id: string;
  aliases: string[];
  /** The keys the user wrote, in their order. */
  fields: string[];
  input: ModelOverrideInput;
}

export interface PoolPolicy {
  card: string | null;
  cuda_total_mib: number | null;
  count: number | null;
  reserve_bytes: number;
  device_plugin_config: string | null;
}

export interface SeatPolicy {
  pinned_bytes?: number;
  by?: string;
  factor?: number;
  why?: string;
  yarn?: "allow" | "forbid";
}

export interface Policy {
  services: string;
  ledgers: string;
  playbooks: string;
  /** Glob of docker compose files (docs/compose.md). */
  compose: string;
  /** Glob of systemd unit files (docs/deploys.md#systemd-units). */
  systemd: string;
  /** Globs of Kubernetes manifests and Helm values files (docs/kubernetes.md). */
  kubernetes: string[];
  fleet: {
    hosts: Record<
      string,
      { gpus: { index: number; name?: string; total_bytes: number; reserve_bytes: number; cuda_total_bytes?: number }[] }
    >;
    tenants: { name: string; host: string; gpu: number; vram_bytes: number; pin: boolean }[];
    /** Kubernetes node pools by name (kvgate.yaml fleet.pools). */
    pools: Record<string, PoolPolicy>;
  };
  /** default_utilization_set: kvgate.yaml sets vllm.default_utilization (then it beats each release's own default for seats that name no version). */
  vllm: { overhead_bytes: number; default_utilization: number; default_utilization_set: boolean; context_overhead_bytes: number };
  kv: { factor: number; round_bytes: number; seats: Record<string, SeatPolicy> };
  /** Models from kvgate.yaml only, as written; src/kv/model-source.ts merges each over the catalog's entry. */
  models: Record<string, UserModel>;
  radiance: { headroom_floor_mib: number; pool_step_mib: number };
  ttm: { slot_mib: number; statics_mib: number; slack_mib: number; guards: string[] };
  knobs: { enforce: string[] };
  /** kvgate.yaml engines.generic: engine names run knowingly with the generic checks only; engines.vllm.versions: the range a seat without a version is sized for (null: the default). */
  engines: { generic: string[]; vllm: { versions: string | null } };
  secrets: { placeholders: { values: string[]; patterns: string[] }; override: string; exclude: string[] };
  waivers: { trailer: string };
  usage: { runaway_tokens: number; models: Record<string, string[]> };
  /** kvgate.yaml `observed:`: the observed plateaus file, or null. */
  observed: string | null;
}

export function toModelSpec(id: string, m: ModelSpecInput): ModelSpec {
  const { weights, aliases, dtype, ...rest } = m;
  return { id, ...rest, weights_bytes: bytesOf(weights), dtype: dtype ?? "bfloat16", aliases: aliases ?? [] };
}

/** Merge a user config over the defaults (objects deep, arrays and scalars replaced) and resolve units. */
export function resolvePolicy(defaults: Config, user: Config, cards?: CardLookup): Policy {
  const c = deepMerge(defaults, user) as Config;
  const req = <T>(v: T | undefined, path: string): T => {
    if (v === undefined) throw new Error(`rules/policy.yaml lacks the default for ${path}`);
    return v;
  };
  const hosts: Policy["fleet"]["hosts"] = {};
  for (const [name, h] of Object.entries(c.fleet?.hosts ?? {})) {
    hosts[name] = {
      gpus: h.gpus.map((g) => {
        // A card rules/cards.yaml knows by name gives what CUDA reports: the default total and cuda_total.
        const knownTotal = g.name === undefined ? undefined : cards?.(g.name)?.cuda_total_bytes;
        const cudaTotal = g.cuda_total !== undefined ? bytesOf(g.cuda_total) : knownTotal;
        const total = g.total !== undefined ? bytesOf(g.total) : knownTotal;
        // The schema (configSchemaWith) refuses a card with neither a total nor a known name.
        if (total === undefined) throw new Error(`fleet.hosts.${name}.gpus: card ${g.index} has no total`);
        return {
          index: g.index,
          ...(g.name === undefined ? {} : { name: g.name }),
          total_bytes: total,
          reserve_bytes: g.reserve === undefined ? 0 : bytesOf(g.reserve),
          ...(cudaTotal === undefined || (g.cuda_total === undefined && cudaTotal === total) ? {} : { cuda_total_bytes: cudaTotal }),
        };
      }),
    };
  }
  const seats: Record<string, SeatPolicy> = {};
  for (const [name, s] of Object.entries(c.kv?.seats ?? {})) {
    const { pinned, ...rest } = s;
    seats[name] = { ...rest, ...(pinned === undefined ? {} : { pinned_bytes: bytesOf(pinned) }) };
  }
  const models: Record<string, UserModel> = {};
  for (const [id, m] of Object.entries(user.models ?? {})) models[id] = { id, aliases: m.aliases ?? [], fields: Object.keys(m), input: m };
  // Built-in placeholders are always on; a user's list adds to them.
  const placeholderValues = [
    ...new Set([...(defaults.secrets?.placeholders?.values ?? []), ...(user.secrets?.placeholders?.values ?? [])]),
  ];
  const placeholderPatterns = [
    ...new Set([...(defaults.secrets?.placeholders?.patterns ?? []), ...(user.secrets?.placeholders?.patterns ?? [])]),
  ];
  return {
    services: req(c.services, "services"),
    ledgers: req(c.ledgers, "ledgers"),
    playbooks: req(c.playbooks, "playbooks"),
    compose: req(c.compose, "compose"),
    systemd: req(c.systemd, "systemd"),
    kubernetes: [req(c.kubernetes, "kubernetes")].flat(),
    fleet: {
      hosts,
      tenants: (c.fleet?.tenants ?? []).map((t) => ({
        name: t.name,
        host: t.host,
        gpu: t.gpu,
        vram_bytes: bytesOf(t.vram),
        pin: t.pin ?? false,
      })),
      pools: Object.fromEntries(
        Object.entries(c.fleet?.pools ?? {}).map(([name, p]) => [
          name,
          {
            card: p.card ?? null,
            cuda_total_mib: p.cuda_total_mib ?? null,
            count: p.count ?? null,
            reserve_bytes: p.reserve === undefined ? 0 : bytesOf(p.reserve),
            device_plugin_config: p.device_plugin_config ?? null,
          },
        ]),
      ),
    },
    vllm: {
      overhead_bytes: bytesOf(req(c.vllm?.overhead, "vllm.overhead")),
      default_utilization: req(c.vllm?.default_utilization, "vllm.default_utilization"),
      default_utilization_set: user.vllm?.default_utilization !== undefined,
      context_overhead_bytes: bytesOf(req(c.vllm?.context_overhead, "vllm.context_overhead")),
    },
    kv: { factor: req(c.kv?.factor, "kv.factor"), round_bytes: bytesOf(req(c.kv?.round, "kv.round")), seats },
    models,
    radiance: {
      headroom_floor_mib: req(c.radiance?.headroom_floor_mib, "radiance.headroom_floor_mib"),
      pool_step_mib: req(c.radiance?.pool_step_mib, "radiance.pool_step_mib"),
    },
    ttm: {
      slot_mib: req(c.ttm?.slot_mib, "ttm.slot_mib"),
      statics_mib: req(c.ttm?.statics_mib, "ttm.statics_mib"),
      slack_mib: req(c.ttm?.slack_mib, "ttm.slack_mib"),
      guards: c.ttm?.guards ?? [],
    },
    knobs: { enforce: req(c.knobs?.enforce, "knobs.enforce") },
    engines: {
      generic: (c.engines?.generic ?? []).map((e) => e.trim().toLowerCase()),
      vllm: { versions: c.engines?.vllm?.versions?.trim() ?? null },
    },
    secrets: {
      placeholders: { values: placeholderValues, patterns: placeholderPatterns },
      override: req(c.secrets?.override, "secrets.override"),
      exclude: c.secrets?.exclude ?? [],
    },
    waivers: { trailer: req(c.waivers?.trailer, "waivers.trailer") },
    usage: { runaway_tokens: req(c.usage?.runaway_tokens, "usage.runaway_tokens"), models: c.usage?.models ?? {} },
    observed: c.observed ?? null,
  };
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function deepMerge(a: unknown, b: unknown): unknown {
  if (b === undefined) return a;
  if (!isPlainObject(a) || !isPlainObject(b)) return b;
  const out: Record<string, unknown> = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = deepMerge(a[k], v);
  return out;
}
