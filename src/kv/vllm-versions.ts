// vLLM's version facts (rules/engines.yaml `version_facts`) resolved for one version: the version a
// service names with VLLM_VERSION or its image tag (`vllm/vllm-openai:v0.11.0`), else the newest
// known. A named version past the last pinned entry of a fact whose newer value has no pinned release
// keeps the pinned value and lists the fact in `uncertain`, so a rule can say it could not confirm.
import type { EnginesSpec } from "../rules/engines.js";
import type { VersionFact, VersionFactName } from "../rules/version-facts.js";

export interface BatchDefaults {
  large_tokens: number;
  large_seqs: number;
  small_tokens: number;
  small_seqs: number;
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
  /** Facts whose value for this version kvgate could not pin. */
  uncertain: VersionFactName[];
  cites: Partial<Record<VersionFactName, string>>;
}

/** The newest version the facts name: what a seat whose image names no version is sized as. */
export function newestVllmVersion(entries: VersionFact[]): string | null {
  const named = entries.map((e) => e.since).filter((s): s is string => s !== null);
  return named.sort(compareVersions).at(-1) ?? null;
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

/** The facts for `version` (null or unparsable = the newest known). */
export function vllmFacts(version: string | null, entries: VersionFact[]): VllmFacts {
  const v = version === null ? null : normalizeVersion(version);
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
  const isBatch = (x: unknown): x is BatchDefaults =>
    typeof x === "object" &&
    x !== null &&
    ["large_tokens", "large_seqs", "small_tokens", "small_seqs"].every((k) => typeof (x as Record<string, unknown>)[k] === "number");
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
    batchDefaults: get("batch_defaults", isBatch, { large_tokens: 8192, large_seqs: 1024, small_tokens: 2048, small_seqs: 256 }),
    uncertain,
    cites,
  };
}
