// The KV one max-length request needs, per GPU, as vLLM reserves it (docs/vllm-sizing.md#model-facts).
//
// vLLM refuses to boot when the available KV memory cannot hold one request of max_model_len
// (vllm/v1/core/kv_cache_utils.py check_enough_kv_cache_memory / get_kv_cache_configs →
// _check_enough_kv_cache_memory: "To serve at least one request with the models's max seq len (…),
// (… GiB KV cache is needed …"). What it compares is _max_memory_usage_bytes_from_groups over the KV
// cache groups projected onto each worker (PP stage):
//   group_size × page_size × Σ_groups cdiv(spec.max_memory_usage_bytes, page_size)
// with the layers grouped as _get_kv_cache_groups_uniform_page_size does (one group per attention
// type when all layers are alike; otherwise groups of `group_size` layers, padding included), and
// each spec's max_memory_usage_bytes from vllm/v1/kv_cache_interface.py (commit 001cabc1):
//   FullAttentionSpec         cdiv(max_model_len, block) × page
//   SlidingWindowSpec         (cdiv(min(window − 1 + max_num_batched_tokens, max_model_len), block) + 1) × page
//   ChunkedLocalAttentionSpec cdiv(min(chunk + max_num_batched_tokens, max_model_len), block) × page
//   MambaSpec                 page × (1 + spec tokens)  ("align", prefix caching: page × (2 + spec tokens))
// Pages: AttentionSpec 2 × block × kv_heads × head_size × dtype bytes (per-token-head int8/fp8 adds
// 2 × block × kv_heads × 4 B of scales; nvfp4 packs head_size/2 + head_size/16 bytes per head and
// side); MLAAttentionSpec block × (kv_lora_rank + qk_rope_head_dim) × dtype bytes, fp8_ds_mla
// block × 656; MambaSpec the conv + temporal state (gated_delta_net_state_shape), padded to the
// attention page (vllm/model_executor/models/config.py HybridAttentionMambaModelConfig).
// A full-attention-only model comes out as layers × cdiv(len, 16) × 16 × bytes per token per layer:
// the contract's dense formula (src/kv/bytes.ts) whenever max_model_len is a multiple of 16.
import { countKinds, type LayerKind, type ModelFacts } from "./facts.js";
import { ppStages } from "./parallel.js";

export interface KvInputs {
  maxModelLen: number;
  tp?: number;
  pp?: number;
  /** --kv-cache-dtype; undefined, null or `auto` = the model's dtype. */
  kvCacheDtype?: string | null;
  /** The scheduler's token budget per step: what a sliding/chunked layer keeps beyond its window. */
  maxNumBatchedTokens: number;
  /** --block-size; vLLM's default is 16 (CacheConfig.DEFAULT_BLOCK_SIZE). */
  blockSize?: number;
  /** false = --disable-hybrid-kv-cache-manager: sliding and chunked layers keep the whole context. */
  hybridKvCacheManager?: boolean;
  /** Whether chunked local attention runs in the hybrid manager (VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE). */
  chunkedLocalHybrid?: boolean;
  /** Prefix caching on (vLLM's default): Mamba state in "align" mode and chunk-aligned attention blocks. */
  prefixCaching?: boolean;
  /** Speculative tokens per step (adds state slots to Mamba layers). */
  numSpeculativeTokens?: number;
  /** VLLM_PP_LAYER_PARTITION: layers per stage. */
  ppPartition?: readonly number[] | null;
  /**
   * `model`: vLLM 0.11–0.16 compared the whole model's request with each stage's memory (PR #23974
   * until PR #33698); `stage` (the default): each stage's own layers.
   */
  ppRequestScope?: "stage" | "model";
}

type SizedKind = "full" | "sliding" | "chunked" | "mamba" | "mla";

interface KindBytes {
  kind: SizedKind;
  /** Real layers of this kind on the sized stage. */
  count: number;
  /** Layer slots vLLM reserves for them: group_size × groups (padding layers included). */
  slots: number;
  /** Blocks one max-length request takes in each of those slots. */
  blocks: number;
  bytes: number;
}

export interface RequestKv {
  /** Bytes per GPU one max-length request needs, on the fullest pipeline stage. */
  requestBytes: number;
  /** The model's layers per kind (whole model). */
  layers: Record<SizedKind, number>;
  /** Per kind on the fullest stage, as sized (sliding layers count as full when the hybrid manager is off). */
  perKind: KindBytes[];
  /** Bytes per GPU per pipeline stage. */
  stages: number[];
  blockSize: number;
  pageBytes: number;
  groupSize: number;
  groups: number;
  /** false when vLLM sizes every attention layer for the whole context (hybrid manager off or not needed). */
  hybrid: boolean;
  kvDtype: string;
  /** KV bytes per token per layer per GPU of an attention layer (the dense formula's unit). */
  bytesPerTokenPerLayer: number;
}

export interface KvProblem {
  field: string;
  message: string;
  fix: string;
}

export type KvResult = { ok: true; kv: RequestKv } | { ok: false; problem: KvProblem };

const FP8 = new Set(["fp8", "fp8_e4m3", "fp8_e5m2", "fp8_inc"]);
/** MLA per-token bytes of fp8_ds_mla (vllm/v1/attention/backends/mla/flashmla_sparse.py, via MLAAttentionSpec). */
const FP8_DS_MLA_BYTES_PER_TOKEN = 656;
/** vllm/config/model.py get_mamba_chunk_size: 2048 when the config names none. */
const MAMBA_CHUNK_DEFAULT = 2048;
/** FlashAttention's block alignment (HybridAttentionMambaModelConfig kernel_block_alignment_size). */
const ATTN_BLOCK_ALIGN = 16;

const cdiv = (a: number, b: number) => Math.ceil(a / b);
const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
const lcm = (a: number, b: number) => (a / gcd(a, b)) * b;

interface KvDtype {
  name: string;
  /** Bytes of one cache element. */
  element: number;
  perTokenHeadScales: boolean;
  nvfp4: boolean;
  dsMla: boolean;
}

function kvDtypeOf(facts: ModelFacts, requested: string | null | undefined): KvDtype | KvProblem {
  const raw = (requested ?? "auto").trim().toLowerCase();
  const base = { perTokenHeadScales: false, nvfp4: false, dsMla: false };
  if (raw === "auto" || raw === "") return { name: `auto (${facts.dtype})`, element: facts.dtype === "fp8" ? 1 : 2, ...base };
  if (raw === "bfloat16" || raw === "float16") return { name: raw, element: 2, ...base };
  // `--dtype float32` with the cache's auto (src/kv/seat.ts effectiveKvDtype).
  if (raw === "float32") return { name: "auto (float32, from --dtype)", element: 4, ...base };
  if (FP8.has(raw)) {
    // DeepSeek-V3.2 (sparse MLA): vLLM turns any fp8 cache into its fp8_ds_mla layout (DeepseekV32ForCausalLM config).
    if (facts.mla?.sparse) return { name: "fp8_ds_mla", element: 1, ...base, dsMla: true };
    return { name: raw, element: 1, ...base };
  }
  if (raw === "fp8_ds_mla") {
    if (!facts.mla)
      return {
        field: "kv_cache_dtype",
        message: "fp8_ds_mla is a layout for MLA models (DeepSeek) only",
        fix: "use --kv-cache-dtype fp8 or auto",
      };
    return { name: raw, element: 1, ...base, dsMla: true };
  }
  if (raw === "int8_per_token_head" || raw === "fp8_per_token_head") return { name: raw, element: 1, ...base, perTokenHeadScales: true };
  if (raw === "nvfp4") return { name: raw, element: 1, ...base, nvfp4: true };
  return {
    field: "kv_cache_dtype",
    message: `--kv-cache-dtype ${requested}: kvgate cannot size this cache layout`,
    fix: "set KV_BYTES_PER_TOKEN for this service (bytes per token per GPU), or use auto, fp8, int8_per_token_head or nvfp4",
  };
}

/** One layer's KV spec, as vLLM would build it. */
interface Spec {
  kind: LayerKind;
  window: number | null;
  chunk: number | null;
  /** Attention: bytes per token; Mamba: the state bytes (one page). */
  unitBytes: number;
  blockSize: number;
  /** Page bytes; Mamba pages are padded to the attention page. */
  page: number;
}

const specKey = (s: Pick<Spec, "kind" | "window" | "chunk">) => `${s.kind}:${s.window ?? ""}:${s.chunk ?? ""}`;

function attentionBytesPerToken(facts: ModelFacts, kvPerGpu: number, d: KvDtype): number {
  if (facts.mla) {
    const latent = d.dsMla ? FP8_DS_MLA_BYTES_PER_TOKEN : (facts.mla.kvLoraRank + facts.mla.qkRopeHeadDim) * d.element;
    return latent + (d.perTokenHeadScales ? 2 * 4 : 0);
  }
  const hd = facts.headDim ?? 0;
  if (d.nvfp4) return kvPerGpu * 2 * (Math.floor(hd / 2) + Math.floor(hd / 16));
  return 2 * kvPerGpu * hd * d.element + (d.perTokenHeadScales ? 2 * kvPerGpu * 4 : 0);
}

/** conv state + temporal state of one linear-attention layer per GPU (gated_delta_net_state_shape), model dtype. */
function mambaStateBytes(facts: ModelFacts, tp: number, specTokens: number): number {
  const s = facts.linearState;
  if (!s) return 0;
  // mamba_cache_dtype auto: the model dtype (bf16/fp16) for conv and temporal state alike
  // (MambaStateDtypeCalculator.gated_delta_net_state_dtype).
  const dtype = 2;
  const convDim = s.keyHeadDim * s.numKeyHeads * 2 + s.valueHeadDim * s.numValueHeads;
  const conv = (s.convKernel - 1 + specTokens) * Math.floor(convDim / tp) * dtype;
  const temporal = Math.floor(s.numValueHeads / tp) * s.keyHeadDim * s.valueHeadDim * dtype;
  return conv + temporal;
}

function maxMemoryBlocks(
  spec: Spec,
  i: Required<Pick<KvInputs, "maxModelLen" | "maxNumBatchedTokens" | "prefixCaching" | "numSpeculativeTokens">>,
): number {
  const L = i.maxModelLen;
  const B = spec.blockSize;
  let bytes: number;
  switch (spec.kind) {
    case "full":
      bytes = cdiv(L, B) * spec.page;
      break;
    case "sliding":
      bytes = (cdiv(Math.min((spec.window ?? 0) - 1 + i.maxNumBatchedTokens, L), B) + 1) * spec.page;
      break;
    case "chunked":
      bytes = cdiv(Math.min((spec.chunk ?? 0) + i.maxNumBatchedTokens, L), B) * spec.page;
      break;
    case "mamba":
      bytes = spec.page * ((i.prefixCaching ? 2 : 1) + i.numSpeculativeTokens);
      break;
    default:
      spec.kind satisfies never;
      bytes = 0;
  }
  return cdiv(bytes, spec.page);
}

export function requestKv(facts: ModelFacts, input: KvInputs): KvResult {
  const tp = Math.max(1, input.tp ?? 1);
  const pp = Math.max(1, input.pp ?? 1);
  const L = input.maxModelLen;
  if (!Number.isSafeInteger(L) || L <= 0)
    return {
      ok: false,
      problem: {
        field: "max_model_len",
        message: `max_model_len ${L} cannot be sized`,
        fix: "set --max-model-len to a positive number of tokens",
      },
    };
  const dt = kvDtypeOf(facts, input.kvCacheDtype);
  if ("field" in dt) return { ok: false, problem: dt };
  if (!facts.mla && (facts.kvHeads === null || facts.headDim === null)) {
    return {
      ok: false,
      problem: {
        field: "kv_heads",
        message: `${facts.id}: KV heads or head size unknown`,
        fix: "add kv_heads and head_dim (or hidden_size and attention_heads) to the model entry",
      },
    };
  }
  const kvPerGpu = facts.mla ? 1 : Math.max(1, Math.floor((facts.kvHeads ?? 1) / tp));
  const perToken = attentionBytesPerToken(facts, kvPerGpu, dt);
  const blockSize = input.blockSize ?? 16;
  const full = {
    maxModelLen: L,
    maxNumBatchedTokens: Math.max(1, input.maxNumBatchedTokens),
    prefixCaching: input.prefixCaching ?? true,
    numSpeculativeTokens: input.numSpeculativeTokens ?? 0,
  };

  // Which kinds vLLM keeps apart. Without the hybrid manager (or for chunked local attention where
  // vLLM turns it off) sliding and chunked layers become FullAttentionSpec: the whole context.
  const hasChunked = facts.layerKinds.includes("chunked");
  const hybridOn = (input.hybridKvCacheManager ?? true) && !(hasChunked && input.chunkedLocalHybrid === false);
  const hasFull = facts.layerKinds.includes("full");
  const hasMamba = facts.layerKinds.includes("mamba");
  if (!hybridOn && hasMamba) {
    return {
      ok: false,
      problem: {
        field: "disable_hybrid_kv_cache_manager",
        message: "vLLM refuses to start a linear-attention model with the hybrid KV cache manager disabled",
        fix: "remove --disable-hybrid-kv-cache-manager",
      },
    };
  }
  const kinds: LayerKind[] = facts.layerKinds.map((k) => (!hybridOn && hasFull && (k === "sliding" || k === "chunked") ? "full" : k));

  // Attention block size: Mamba hybrids raise it until one attention page holds a Mamba state.
  let attnBlock = blockSize;
  const stateBytes = hasMamba ? mambaStateBytes(facts, tp, full.numSpeculativeTokens) : 0;
  if (hasMamba) {
    const tokensPerState = cdiv(stateBytes, perToken);
    const needed = full.prefixCaching
      ? (() => {
          const chunk = lcm(MAMBA_CHUNK_DEFAULT, ATTN_BLOCK_ALIGN);
          return chunk * cdiv(tokensPerState, chunk);
        })()
      : ATTN_BLOCK_ALIGN * cdiv(stateBytes, ATTN_BLOCK_ALIGN * perToken);
    if (attnBlock < needed) attnBlock = needed;
  }
  const attnPage = attnBlock * perToken;
  const specs: Spec[] = kinds.map((k) => {
    if (k === "mamba")
      return { kind: k, window: null, chunk: null, unitBytes: stateBytes, blockSize: attnBlock, page: Math.max(attnPage, stateBytes) };
    return {
      kind: k,
      window: k === "sliding" ? facts.slidingWindow : null,
      chunk: k === "chunked" ? facts.attentionChunkSize : null,
      unitBytes: perToken,
      blockSize: attnBlock,
      page: attnPage,
    };
  });

  // Group the layers (whole model) as vLLM does.
  const byType = new Map<string, number[]>();
  specs.forEach((s, i) => {
    const key = specKey(s);
    const list = byType.get(key) ?? [];
    list.push(i);
    byType.set(key, list);
  });
  const groups: { spec: Spec; layers: number[] }[] = [];
  let groupSize: number;
  if (byType.size === 1) {
    groupSize = specs.length;
    groups.push({ spec: specs[0] as Spec, layers: specs.map((_, i) => i) });
  } else {
    const counts = [...byType.values()].map((l) => l.length);
    const min = Math.min(...counts);
    const max = Math.max(...counts);
    groupSize = max < min * 1.5 ? max : min;
    for (const layers of byType.values()) {
      const n = cdiv(layers.length, groupSize);
      for (let g = 0; g < n; g++) groups.push({ spec: specs[layers[0] as number] as Spec, layers: layers.filter((_, j) => j % n === g) });
    }
  }
  const page = groups[0]?.spec.page ?? attnPage;
  const blocksOf = groups.map((g) => maxMemoryBlocks(g.spec, full));

  // Each PP stage holds its layers; empty groups still count their blocks (_max_memory_usage_bytes_from_groups).
  const stageRanges = input.ppRequestScope === "model" ? ppStages(facts.layers, 1) : ppStages(facts.layers, pp, input.ppPartition);
  const stageBytes = stageRanges.map(([s, e]) => {
    const sizes = groups.map((g) => g.layers.filter((l) => l >= s && l < e).length);
    const gs = Math.max(...sizes);
    return gs * page * blocksOf.reduce((a, b) => a + b, 0);
  });
  const worst = stageBytes.indexOf(Math.max(...stageBytes));
  const [ws, we] = stageRanges[worst] ?? [0, facts.layers];
  const gsWorst = Math.max(...groups.map((g) => g.layers.filter((l) => l >= ws && l < we).length));

  const perKind = new Map<SizedKind, KindBytes>();
  groups.forEach((g, gi) => {
    const kind: SizedKind = g.spec.kind === "full" && facts.mla ? "mla" : g.spec.kind;
    const entry = perKind.get(kind) ?? { kind, count: 0, slots: 0, blocks: blocksOf[gi] ?? 0, bytes: 0 };
    entry.count += g.layers.filter((l) => l >= ws && l < we).length;
    entry.slots += gsWorst;
    entry.bytes += gsWorst * page * (blocksOf[gi] ?? 0);
    perKind.set(kind, entry);
  });

  return {
    ok: true,
    kv: {
      requestBytes: stageBytes[worst] ?? 0,
      layers: countKinds(facts),
      perKind: [...perKind.values()],
      stages: stageBytes,
      blockSize: attnBlock,
      pageBytes: page,
      groupSize,
      groups: groups.length,
      hybrid: hybridOn && byType.size > 1,
      kvDtype: dt.name,
      bytesPerTokenPerLayer: perToken,
    },
  };
}

/** ceil(factor × request bytes / round) × round: the pin a seat needs (docs/vllm-sizing.md's rounding). */
export function requiredForRequest(requestBytes: number, factor: number, roundBytes: number): number {
  // 1e-9 keeps an exact multiple from rounding up on float noise, as requiredKv does.
  return Math.ceil((factor * requestBytes) / roundBytes - 1e-9) * roundBytes;
}

/**
 * The longest max_model_len whose one-request KV fits `availableBytes` (vLLM's binary search in
 * kv_cache_utils estimate_max_model_len / _estimate_max_model_len_from_groups): what
 * `--max-model-len auto` picks, and the figure vLLM's refusal suggests. 0 when not even one token fits.
 */
export function estimateMaxModelLen(facts: ModelFacts, input: Omit<KvInputs, "maxModelLen">, availableBytes: number, upTo: number): number {
  const fits = (len: number): boolean => {
    const r = requestKv(facts, { ...input, maxModelLen: len });
    return r.ok && r.kv.requestBytes <= availableBytes;
  };
  if (!fits(1)) return 0;
  let left = 1;
  let right = upTo;
  let result = 1;
  while (left <= right) {
    const mid = Math.floor((left + right) / 2);
    if (fits(mid)) {
      result = mid;
      left = mid + 1;
    } else {
      right = mid - 1;
    }
  }
  return result;
}
