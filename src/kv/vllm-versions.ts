// vLLM's version facts (rules/engines.yaml `version_facts`) resolved for one version: the version a
// service names with VLLM_VERSION or its image tag (`vllm/vllm-openai:v0.11.0`), else the newest
// known. A named version past the last pinned entry of a fact whose newer value has no pinned release
// keeps the pinned value and lists the fact in `uncertain`, so a rule can say it could not confirm.
import type { EnginesSpec } from "../rules/engines.js";
import type { VersionFact, VersionFactName } from "../rules/version-facts.js";
import { BatchClass } from "../rules/cards.js";
import type { Service } from "../model/types.js";
import { imageEntries } from "../model/recognise.js";

/** vLLM's defaults since PR #17885 (EngineArgs.get_batch_defaults), the fallback of a broken entry. */
const NEWEST_BATCH: BatchDefaults = {
  engine: "v1",
  large_classes: ["h100", "large"],
  large_tokens: 8192,
  large_seqs: 1024,
  small_tokens: 2048,
  small_seqs: 256,
};

/**
 * What `vllm serve` budgets without --max-num-batched-tokens / --max-num-seqs (EngineArgs
 * get_batch_defaults and the code before it). V0: max(max_model_len, 2048) tokens, or
 * `chunked_tokens` when a context over 32K turns chunked prefill on; V1: by the card's class.
 */
export type BatchDefaults =
  | { engine: "v0"; seqs: number; chunked_tokens?: number }
  | {
      engine: "v1";
      large_classes: BatchClass[];
      large_tokens: number;
      large_seqs: number;
      small_tokens: number;
      small_seqs: number;
    };

/** Which CUDA graphs a seat captures (version fact cuda_graphs): their mode and the capture-size list. */
export interface GraphCapture {
  mode: "full" | "piecewise" | "full_and_piecewise";
  sizes: "v0" | "v1_512" | "v1_seqs";
  /** Bytes one layer's graph of one capture size takes per unit of hidden size. */
  bytes_per_hidden: number;
}

export interface VllmFacts {
  /** The version the facts are for; null = the newest kvgate knows. */
  version: string | null;
  defaultUtilization: number;
  /** --kv-cache-memory-bytes exists. */
  kvCacheMemoryBytesFlag: boolean;
  /** --max-model-len auto / -1 is accepted. */
  maxModelLenAuto: boolean;
  /** What max_new_tokens in --override-generation-config does: nothing, a hard cap, or a default. */
  maxNewTokens: "ignored" | "cap" | "default";
  kvCacheDtypes: string[];
  /** CUDA graph memory is estimated inside the utilization budget (no graph headroom needed outside it). */
  cudaGraphsInBudget: boolean;
  /** Sliding-window layers keep only their window (the hybrid KV cache manager); else the whole context. */
  hybridKvCacheManager: boolean;
  /** Llama-4's chunked local layers run in the hybrid KV cache manager (else they keep the whole context). */
  chunkedLocalHybrid: boolean;
  batchDefaults: BatchDefaults;
  /** NCCL and custom all-reduce buffers are allocated after the profiler's baseline (counted in the seat's overhead). */
  ncclInProfile: boolean;
  cudaGraphs: GraphCapture;
  /** DeepSeek's MLA models cache the compressed latent (else per-head K/V). */
  mlaCache: boolean;
  /** Under pipeline parallelism one request is compared per stage, or the whole model's against each stage. */
  ppRequestScope: "stage" | "model";
  /** Gemma-2 is capped to its sliding window (vLLM turned interleaved sliding window off). */
  gemma2WindowCap: boolean;
  /** Facts whose value for this version kvgate could not pin. */
  uncertain: VersionFactName[];
  cites: Partial<Record<VersionFactName, string>>;
}

/** Dotted versions compared numerically: 0.10.1 > 0.9.2. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(".").map((n) => Number.parseInt(n, 10) || 0);
  const pb = b.split(".").map((n) => Number.parseInt(n, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** `v0.11.0`, `0.10.1.1`, `v0.6.4.post1`, `0.11.0-cu128` → the dotted version; anything else → null. */
export function normalizeVersion(text: string): string | null {
  const m = /^v?(\d+(?:\.\d+)+)(?:$|[-+._a-zA-Z])/.exec(text.trim());
  return m ? (m[1] as string) : null;
}

/** `vllm/vllm-openai:v0.11.0` → `0.11.0`; `:latest`, `:nightly`, a digest or no tag → null. */
export function versionFromImage(image: string): string | null {
  const ref = image.trim().split("@")[0] ?? "";
  const slash = ref.lastIndexOf("/");
  const colon = ref.lastIndexOf(":");
  if (colon <= slash) return null;
  return normalizeVersion(ref.slice(colon + 1));
}

export function vllmVersionFacts(engines: EnginesSpec): VersionFact[] {
  return engines.engines.vllm?.version_facts ?? [];
}

function resolve(
  entries: VersionFact[],
  name: VersionFactName,
  version: string | null,
): { entry: VersionFact | undefined; uncertain: boolean } {
  const list = entries.filter((e) => e.fact === name);
  if (version === null) return { entry: list.at(-1), uncertain: false };
  let entry: VersionFact | undefined;
  let index = -1;
  list.forEach((e, i) => {
    if (e.since !== null && compareVersions(e.since, version) <= 0) {
      entry = e;
      index = i;
    }
  });
  if (!entry) return { entry: list[0], uncertain: true };
  // A later entry without a pinned release may already hold for this version.
  const uncertain = list.slice(index + 1).some((e) => e.since === null);
  return { entry, uncertain };
}

/**
 * Facts already resolved, by the pack's entries and the version: every seat of a fleet, on both sides
 * of a change, asks for the same few releases (an unversioned seat for each allowed one), and
 * resolving them again was 10 of 190 ms of a staged check (BENCHMARKS.md). The facts are shared:
 * callers only read them.
 */
const resolved = new WeakMap<VersionFact[], Map<string | null, VllmFacts>>();

/** The facts for `version` (null or unparsable = the newest known). */
export function vllmFacts(version: string | null, entries: VersionFact[]): VllmFacts {
  const v = version === null ? null : normalizeVersion(version);
  let byVersion = resolved.get(entries);
  if (!byVersion) resolved.set(entries, (byVersion = new Map<string | null, VllmFacts>()));
  let facts = byVersion.get(v);
  if (!facts) byVersion.set(v, (facts = resolveFacts(v, entries)));
  return facts;
}

function resolveFacts(v: string | null, entries: VersionFact[]): VllmFacts {
  const uncertain: VersionFactName[] = [];
  const cites: Partial<Record<VersionFactName, string>> = {};
  const get = <T>(name: VersionFactName, check: (x: unknown) => x is T, fallback: T): T => {
    const r = resolve(entries, name, v);
    if (r.uncertain) uncertain.push(name);
    if (!r.entry || !check(r.entry.value)) {
      if (!uncertain.includes(name)) uncertain.push(name);
      return fallback;
    }
    cites[name] = r.entry.cite;
    return r.entry.value;
  };
  const isNum = (x: unknown): x is number => typeof x === "number";
  const isBool = (x: unknown): x is boolean => typeof x === "boolean";
  const isCap = (x: unknown): x is VllmFacts["maxNewTokens"] => x === "ignored" || x === "cap" || x === "default";
  const isList = (x: unknown): x is string[] => Array.isArray(x);
  const isBatch = (x: unknown): x is BatchDefaults => {
    if (typeof x !== "object" || x === null) return false;
    const r = x as Record<string, unknown>;
    if (r.engine === "v0") return typeof r.seqs === "number" && (r.chunked_tokens === undefined || typeof r.chunked_tokens === "number");
    return (
      r.engine === "v1" &&
      Array.isArray(r.large_classes) &&
      r.large_classes.every((c) => BatchClass.safeParse(c).success) &&
      ["large_tokens", "large_seqs", "small_tokens", "small_seqs"].every((k) => typeof r[k] === "number")
    );
  };
  const isGraphs = (x: unknown): x is GraphCapture => {
    const r = x as Record<string, unknown> | null;
    return (
      typeof r === "object" &&
      r !== null &&
      ["full", "piecewise", "full_and_piecewise"].includes(r.mode as string) &&
      ["v0", "v1_512", "v1_seqs"].includes(r.sizes as string) &&
      typeof r.bytes_per_hidden === "number" &&
      r.bytes_per_hidden > 0
    );
  };
  const isScope = (x: unknown): x is VllmFacts["ppRequestScope"] => x === "stage" || x === "model";
  return {
    version: v,
    defaultUtilization: get("default_utilization", isNum, 0.92),
    kvCacheMemoryBytesFlag: get("kv_cache_memory_bytes_flag", isBool, true),
    maxModelLenAuto: get("max_model_len_auto", isBool, true),
    maxNewTokens: get("max_new_tokens", isCap, "cap"),
    kvCacheDtypes: get("kv_cache_dtypes", isList, ["auto", "fp8"]),
    cudaGraphsInBudget: get("cuda_graphs_in_budget", isBool, false),
    hybridKvCacheManager: get("hybrid_kv_cache_manager", isBool, true),
    chunkedLocalHybrid: get("chunked_local_hybrid", isBool, false),
    batchDefaults: get("batch_defaults", isBatch, NEWEST_BATCH),
    ncclInProfile: get("nccl_in_profile", isBool, false),
    cudaGraphs: get("cuda_graphs", isGraphs, { mode: "full_and_piecewise", sizes: "v1_seqs", bytes_per_hidden: 200 }),
    mlaCache: get("mla_cache", isBool, true),
    ppRequestScope: get("pp_request_scope", isScope, "stage"),
    gemma2WindowCap: get("gemma2_window_cap", isBool, false),
    uncertain,
    cites,
  };
}

/**
 * The vLLM version a service is deployed with, or null when nothing says: VLLM_VERSION (setting or
 * env key), else the tag of the image it runs (any *_IMAGE key, IMAGE first: model/recognise.ts
 * imageEntries; a compose `image:` reads as IMAGE). The one answer every rule shares.
 */
export function deployedVllmVersion(service: Pick<Service, "settings" | "env">): string | null {
  const setting = service.settings.vllm_version?.value;
  const declared = typeof setting === "string" && setting !== "" ? setting : service.env.entries.get("VLLM_VERSION")?.value.trim();
  if (declared) return normalizeVersion(declared) ?? declared;
  for (const entry of imageEntries(service.env)) {
    const v = versionFromImage(entry.value);
    if (v) return v;
  }
  return null;
}

/** `0.11.x` or `0.11` (a prefix), else a comparison: does `version` satisfy one comparator? */
function satisfies(version: string, comparator: string): boolean {
  const m = /^(>=|<=|>|<|=)?\s*v?(\d+(?:\.(?:\d+|x))*)$/.exec(comparator);
  if (!m) return false;
  const op = m[1] ?? "";
  const target = (m[2] as string).replace(/(\.x)+$/, "");
  if (op === "" || op === "=") {
    const parts = target.split(".");
    const v = version.split(".");
    // A bare version with fewer parts (`0.11`) or an `x` stands for every release it prefixes.
    return parts.every((p, i) => (Number.parseInt(v[i] ?? "0", 10) || 0) === (Number.parseInt(p, 10) || 0));
  }
  const d = compareVersions(version, target);
  return op === ">=" ? d >= 0 : op === "<=" ? d <= 0 : op === ">" ? d > 0 : d < 0;
}

/** `>=0.10 <0.12` → every comparator must hold. */
function inRange(version: string, range: string): boolean {
  const parts = range
    .trim()
    .replace(/(>=|<=|>|<|=)\s+/g, "$1")
    .split(/\s+/)
    .filter((p) => p !== "");
  return parts.length > 0 && parts.every((p) => satisfies(version, p));
}

/** `0.21.0` → `0.21`. */
function minorOf(version: string): string {
  return version.split(".").slice(0, 2).join(".");
}

/**
 * The releases a seat without a version is sized for: the known releases (rules/engines.yaml
 * `versions`) that the policy's range allows; without a range, those of the last three minor
 * releases known. A range no known release satisfies (a newer vLLM than kvgate has read) gives the
 * newest known, which the caller reports as an assumption.
 */
export function allowedVersions(known: readonly string[], range: string | null): string[] {
  if (known.length === 0) return [];
  if (range === null) {
    const minors = [...new Set(known.map(minorOf))].slice(-3);
    return known.filter((v) => minors.includes(minorOf(v)));
  }
  const hit = known.filter((v) => inRange(v, range));
  return hit.length > 0 ? hit : [known.at(-1) as string];
}

/** Releases whose facts are the same, sized once: `versions` oldest first, `facts` for the newest of them. */
export interface VersionGroup {
  versions: string[];
  facts: VllmFacts;
}

/** What sizes a seat, without the bookkeeping (version, cites, uncertain) that differs between equal releases. */
function factKey(f: VllmFacts): string {
  const { version: _v, cites: _c, uncertain: _u, ...rest } = f;
  return JSON.stringify(rest);
}

const grouped = new WeakMap<VersionFact[], Map<string, readonly VersionGroup[]>>();

/**
 * Consecutive releases with the same facts, merged (0.19.0 and 0.20.0 size alike; 0.21.0 moved the
 * graphs into the budget). Worked out once per list of releases (every unversioned seat asks for the
 * policy's); the groups are shared: callers only read them.
 */
export function versionGroups(versions: readonly string[], entries: VersionFact[]): readonly VersionGroup[] {
  let byList = grouped.get(entries);
  if (!byList) grouped.set(entries, (byList = new Map<string, readonly VersionGroup[]>()));
  const key = versions.join(" ");
  let groups = byList.get(key);
  if (!groups) byList.set(key, (groups = groupVersions(versions, entries)));
  return groups;
}

function groupVersions(versions: readonly string[], entries: VersionFact[]): VersionGroup[] {
  const groups: VersionGroup[] = [];
  let lastKey = "";
  for (const v of versions) {
    const facts = vllmFacts(v, entries);
    const key = factKey(facts);
    const last = groups.at(-1);
    if (last && key === lastKey) {
      last.versions.push(v);
      last.facts = facts;
    } else {
      groups.push({ versions: [v], facts });
      lastKey = key;
    }
  }
  return groups;
}

/** `0.19.0–0.20.0`, or the one release. */
export function versionsLabel(versions: readonly string[]): string {
  if (versions.length === 0) return "";
  return versions.length === 1 ? (versions[0] as string) : `${versions[0]}–${versions.at(-1)}`;
}
