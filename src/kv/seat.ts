// Everything the KV rules, the card table and the planner need about one seat (a service whose engine
// sizes its KV per seat: vLLM), computed once from the service's settings, the policy and the catalog.
import type { ModelSpec, Policy, SeatPolicy } from "../config/policy.js";
import { cudaTotalOf, definitionOf, type Card, type FleetState, type Origin, type Service } from "../model/types.js";
import type { RulesPack } from "../rules/pack.js";
import { sizesKvPerSeat } from "../model/engine.js";
import { MiB } from "../units/bytes.js";
import { bytesPerToken, perTokenOfModel, requiredKv, type PerToken } from "./bytes.js";
import { compact, formatInt, size } from "./format.js";
import { showFix, type ValueFix } from "../model/value-fix.js";
import { settingFix } from "../model/setting-fix.js";
import type { ModelFacts } from "./facts.js";
import type { ConfigProblem } from "./hf-config.js";
import { modelSourceOf, type ModelSource, type SourceRead } from "./model-source.js";
import { estimateMaxModelLen, requestKv, requiredForRequest, type KvInputs, type KvProblem, type RequestKv } from "./attention.js";
import { derivedMaxModelLen, withConfigOverrides, type DerivedMaxLen, type MaxLenCaps } from "./max-len.js";
import { estimatedKv, profilerOverhead, type Overhead } from "./overhead.js";
import { ppPartitionOf, ppStages, stageWeights } from "./parallel.js";
import { deployedWeights, type DeployedWeights } from "./quantization.js";
import {
  allowedVersions,
  deployedVllmVersion,
  versionGroups,
  versionsLabel,
  vllmFacts,
  vllmVersionFacts,
  type VllmFacts,
} from "./vllm-versions.js";
import type { Severity } from "../rules/severity.js";
import { cardBatchClass, defaultBatchLimits } from "./batch.js";
import { graphMemory, type GraphEstimate } from "./graphs.js";
import type { BatchClass } from "../rules/cards.js";

export interface VllmSeat {
  service: Service;
  name: string;
  host: string | null;
  /** The cards it occupies: GPU, else vLLM's default of the first TP devices. */
  cards: number[];
  tp: number;
  model: ModelSpec | null;
  perToken: PerToken | null;
  /** MAX_MODEL_LEN, else the model's max_context; null when neither is known. */
  maxModelLen: number | null;
  maxModelLenSet: boolean;
  factor: number;
  required: number | null;
  /** The byte pin per GPU; null for a utilization-sized seat. */
  pinned: number | null;
  utilization: number;
  overhead: number;
  /** Weights per GPU (weights / TP, or WEIGHTS_MIB); null when unknown. */
  weights: number | null;
  /** How the launch changed the checkpoint's weights (--quantization, --dtype); null when it did not. */
  weightsLoaded: DeployedWeights | null;
  policy: SeatPolicy | undefined;
  /** Set when kv.seats.<name>.pinned names the owner's number. */
  ownerPinned: boolean;
  /** The model's facts, from kvgate.yaml, a committed config.json or the catalog (src/kv/model-source.ts). */
  facts: ModelFacts | null;
  source: ModelSource | null;
  /** A committed config.json the seat should be sized from but cannot be read. */
  sourceProblem: ConfigProblem | null;
  /** Pipeline-parallel stages (PP / --pipeline-parallel-size). */
  pp: number;
  /** VLLM_PP_LAYER_PARTITION read (layers per stage), when it is valid. */
  ppPartition: number[] | null;
  /** The vLLM version's facts (the deployed version's, else those of `versions`). */
  vf: VllmFacts;
  /** The version the service is deployed with (VLLM_VERSION, the image tag), or null. */
  deployedVersion: string | null;
  /** The releases this sizing stands for: the deployed one, or a group of the releases the policy allows. */
  versions: string[];
  /**
   * Without a deployed version, the seat sized for each group of allowed releases whose facts differ,
   * oldest first (this seat is the last, the newest). With one: [this seat].
   */
  variants: VllmSeat[];
  /** --max-model-len auto: vLLM fits the length to memory at boot; kvgate cannot size it ahead. */
  maxModelLenAuto: boolean;
  /** The model's derived maximum (vLLM's _get_and_verify_max_len), when the facts are known. */
  derived: DerivedMaxLen | null;
  /** The KV one max-length request needs, per vLLM's KV cache specs (null with KV_BYTES_PER_TOKEN). */
  request: RequestKv | null;
  requestProblem: KvProblem | null;
  batch: { maxNumBatchedTokens: number; maxNumSeqs: number };
  /** The tightest card's class for vLLM's batch defaults, and its name when the inventory gives it. */
  card: { name: string | null; batchClass: BatchClass } | null;
  /** CUDA graphs are captured (no --enforce-eager). */
  graphs: boolean;
  /** What they take per card (capture sizes × layers), when the seat captures them and the model is known. */
  graphMemory: GraphEstimate | null;
  /** What the seat's KV is compared against: the pin, or the profiler's estimate of an unpinned seat. */
  kvSource: "pinned" | "estimated" | null;
  /** An unpinned seat's KV as vLLM's profiler will leave it, on its smallest card; null when pinned or no card is known. */
  estimate: KvEstimate | null;
}

interface KvEstimate {
  bytes: number;
  totalBytes: number;
  utilization: number;
  weightsPerGpu: number;
  overhead: Overhead;
  /** CUDA graph memory subtracted inside the budget (vLLM ≥ 0.21 estimates it there); 0 before. */
  graphsBytes: number;
}

function strSetting(s: Service, name: string): string | null {
  const v = s.settings[name]?.value;
  return typeof v === "string" && v.trim() !== "" ? v.trim() : null;
}

function numSetting(s: Service, name: string): number | undefined {
  const v = s.settings[name]?.value;
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

function stringSetting(s: Service, name: string): string | undefined {
  const v = s.settings[name]?.value;
  return typeof v === "string" && v.trim() !== "" ? v.trim() : undefined;
}

export function seatCardsOf(s: Service): number[] {
  if (s.gpus.length > 0) return s.gpus;
  // vLLM's default: the first TP × PP devices (one per rank).
  const pp = numSetting(s, "pp") ?? 1;
  return Array.from({ length: Math.max(1, s.tp) * Math.max(1, pp) }, (_, i) => i);
}

/** The smallest card the seat occupies (its KV is bounded by the tightest one). */
function tightestCard(service: Service, cards: readonly Card[]): Card | null {
  let best: Card | null = null;
  for (const index of seatCardsOf(service)) {
    const c = cards.find((x) => x.host === service.host && x.index === index);
    if (c && (best === null || c.totalBytes < best.totalBytes)) best = c;
  }
  return best;
}

/**
 * A seat is the same for the same service, policy, pack, model files and cards; every kv and card
 * check asks for it, over the state before and after and again for each deploy's re-check, so it is
 * worked out once (profiled: 74 of 490 ms of a staged check on a 10-seat fleet went to repeating it).
 */
const seats = new WeakMap<Service, { policy: Policy; pack: RulesPack; modelFiles: unknown; cards: unknown; seat: VllmSeat }>();

export function seatOf(
  service: Service,
  policy: Policy,
  pack: RulesPack,
  state: Pick<FleetState, "modelFiles" | "cards"> = { cards: [] },
): VllmSeat {
  const hit = seats.get(service);
  if (hit && hit.policy === policy && hit.pack === pack && hit.modelFiles === state.modelFiles && hit.cards === state.cards)
    return hit.seat;
  const entries = vllmVersionFacts(pack.engines);
  const deployed = deployedVllmVersion(service);
  // The model's facts do not depend on the version: read once for every variant.
  const read = modelSourceOf(service, state, policy, pack);
  let seat: VllmSeat;
  if (deployed !== null) {
    seat = computeSeat(service, policy, pack, state, read, { deployed, versions: [deployed], vf: vllmFacts(deployed, entries) });
    seat.variants = [seat];
  } else {
    const allowed = allowedVersions(pack.engines.engines.vllm?.versions ?? [], policy.engines.vllm.versions);
    const groups = versionGroups(allowed, entries);
    const variants = (groups.length > 0 ? groups : [{ versions: [], facts: vllmFacts(null, entries) }]).map((g) =>
      computeSeat(service, policy, pack, state, read, { deployed: null, versions: g.versions, vf: g.facts }),
    );
    for (const v of variants) v.variants = variants;
    seat = variants.at(-1) as VllmSeat;
  }
  seats.set(service, { policy, pack, modelFiles: state.modelFiles, cards: state.cards, seat });
  return seat;
}

/** DeepSeek's MLA facts as a version before 0.7.1 cached them: per-head K/V of qk_nope + qk_rope per head. */
function forVersion(facts: ModelFacts, vf: VllmFacts): { facts: ModelFacts } | { problem: KvProblem } {
  if (!facts.mla || vf.mlaCache) return { facts };
  const nope = facts.mla.qkNopeHeadDim;
  if (nope === null)
    return {
      problem: {
        field: "qk_nope_head_dim",
        message: `vLLM ${vf.version ?? ""} caches DeepSeek's per-head K/V (the MLA latent cache came in 0.7.1), and ${facts.id} does not give qk_nope_head_dim`,
        fix: "add qk_nope_head_dim to the model entry, or run vLLM 0.7.1 or later",
      },
    };
  return { facts: { ...facts, mla: null, kvHeads: facts.kvHeads ?? facts.attentionHeads, headDim: nope + facts.mla.qkRopeHeadDim } };
}

interface VersionInput {
  deployed: string | null;
  versions: string[];
  vf: VllmFacts;
}

function computeSeat(
  service: Service,
  policy: Policy,
  pack: RulesPack,
  state: Pick<FleetState, "modelFiles" | "cards">,
  read: SourceRead,
  v: VersionInput,
): VllmSeat {
  const { vf } = v;
  const source = read.ok ? read.source : null;
  const sourceProblem = read.ok ? null : read.problem;
  const model = source?.spec ?? null;
  const tp = Math.max(1, service.tp);
  const pp = Math.max(1, numSetting(service, "pp") ?? 1);
  const kvDtype = effectiveKvDtype(service);
  const ownPerToken = bytesPerToken(null, service);
  const ownLen = numSetting(service, "max_model_len");
  const maxModelLenAuto = service.settings.max_model_len?.value === "auto";
  const overridden = source
    ? withConfigOverrides(source.facts, service.settings.hf_overrides?.value, service.settings.rope_scaling?.value)
    : null;
  const versioned = overridden ? forVersion(overridden, vf) : null;
  const facts = versioned && "facts" in versioned ? versioned.facts : overridden;
  const partitionText = stringSetting(service, "pp_layer_partition");
  const partitionRead = facts && partitionText !== undefined && pp > 1 ? ppPartitionOf(partitionText, pp, facts.layers) : null;
  const ppPartition = partitionRead?.ok ? partitionRead.partition : null;
  const derivedRead = facts ? derivedMaxModelLen(facts, maxLenCaps(service, facts, vf)) : null;
  const derived = derivedRead && !("field" in derivedRead) ? derivedRead : null;
  // The catalog's max_context is the length a seat without MAX_MODEL_LEN runs at; a committed config
  // gives vLLM's own derived default (rope scaling, longrope's original length).
  const defaultLen = source?.from === "config.json" && derived ? derived.defaultLen : (model?.max_context ?? null);
  // A length written but unreadable (`--max-model-len ${LEN}` the container's shell would fill:
  // engine/bad-value) is not the model's maximum: the seat is not sized by a length it does not run at.
  const lenUnreadable = ownLen === undefined && service.invalid.some((v) => v.name === "max_model_len");
  const maxModelLen = lenUnreadable ? null : (ownLen ?? defaultLen);
  const seatPolicy = policy.kv.seats[service.name];
  const factor = seatPolicy?.factor ?? policy.kv.factor;
  const card = tightestCard(service, state.cards);
  const cardClass = card ? cardBatchClass(pack.cards(), card.name, cudaTotalOf(card)) : "small";
  const batch = {
    ...defaultBatchLimits({
      defaults: vf.batchDefaults,
      cardClass,
      maxModelLen: maxModelLen ?? 2048,
      chunkedEligible: !(facts?.layerKinds.includes("sliding") ?? false),
    }),
    ...(numSetting(service, "max_num_batched_tokens") !== undefined
      ? { maxNumBatchedTokens: numSetting(service, "max_num_batched_tokens") as number }
      : {}),
    ...(numSetting(service, "max_num_seqs") !== undefined ? { maxNumSeqs: numSetting(service, "max_num_seqs") as number } : {}),
  };
  // The layers on the fullest card: one pipeline stage's.
  const stageLayers = facts ? Math.max(...ppStages(facts.layers, pp, ppPartition).map(([a, b]) => b - a)) : null;
  const perToken =
    ownPerToken ??
    (model
      ? perTokenOfModel(model, service.tp, kvDtype, { mlaCache: vf.mlaCache, ...(stageLayers !== null ? { layers: stageLayers } : {}) })
      : null);
  let request: RequestKv | null = null;
  let requestProblem: KvProblem | null = versioned && "problem" in versioned ? versioned.problem : null;
  if (!ownPerToken && facts && maxModelLen !== null && requestProblem === null) {
    const r = requestKv(facts, {
      maxModelLen,
      tp,
      pp,
      kvCacheDtype: typeof kvDtype === "string" ? kvDtype : null,
      maxNumBatchedTokens: batch.maxNumBatchedTokens,
      hybridKvCacheManager: vf.hybridKvCacheManager,
      chunkedLocalHybrid: vf.chunkedLocalHybrid,
      ppPartition,
      ppRequestScope: vf.ppRequestScope,
    });
    if (r.ok) request = r.kv;
    else requestProblem = r.problem;
  }
  const roundBytes = policy.kv.round_bytes;
  const required = request
    ? requiredForRequest(request.requestBytes, factor, roundBytes)
    : perToken && maxModelLen !== null
      ? requiredKv({ factor, maxModelLen, bytesPerToken: perToken.bytes, roundBytes })
      : null;
  const weightsMib = numSetting(service, "weights_mib");
  const overheadMib = numSetting(service, "overhead_mib");
  // The checkpoint as the launch loads it: --quantization fp8 on a bf16 checkpoint, --dtype float32.
  const loaded = model
    ? deployedWeights(model.weights_bytes, facts, strSetting(service, "quantization"), strSetting(service, "dtype"))
    : null;
  const weights =
    weightsMib !== undefined
      ? Math.round(weightsMib * MiB)
      : loaded && facts
        ? pp > 1
          ? stageWeights(loaded.bytes, facts, tp, pp, ppPartition).perGpu
          : Math.round(loaded.bytes / tp)
        : loaded
          ? Math.round(loaded.bytes / tp)
          : null;
  // A deployed version's own default (0.9 before 0.21, 0.92 since); without one, the policy's when
  // kvgate.yaml sets it, else each allowed release's own.
  const utilization =
    numSetting(service, "gpu_memory_utilization") ??
    (v.deployed === null && policy.vllm.default_utilization_set ? policy.vllm.default_utilization : vf.defaultUtilization);
  // A version without --kv-cache-memory-bytes (before 0.10.2) refuses the flag at boot (engine/removed-flag):
  // it is no pin, and the seat is sized as the profiler sizes it once the flag is gone, so no advice
  // or --fix ever adjusts a pin that version cannot take.
  const pinned = vf.kvCacheMemoryBytesFlag ? (numSetting(service, "kv_pin") ?? null) : null;
  const graphs = service.settings.enforce_eager?.value !== true;
  const graphMemoryOf =
    graphs && facts && stageLayers !== null
      ? graphMemory(vf.cudaGraphs, {
          layers: stageLayers,
          hiddenSize: facts.hiddenSize ?? 4096,
          moe: facts.experts !== null,
          pp,
          maxNumSeqs: batch.maxNumSeqs,
          maxNumBatchedTokens: batch.maxNumBatchedTokens,
        })
      : null;
  // Under pipeline parallelism each stage's card holds that stage's weights: the tightest stage sizes the KV.
  const stageCard = stageCardsOf(
    service,
    state.cards,
    tp,
    pp,
    loaded && facts && weightsMib === undefined ? stageWeights(loaded.bytes, facts, tp, pp, ppPartition).stages : null,
  );
  const sizedCard = stageCard?.card ?? card;
  const sizedWeights = stageCard?.weights ?? weights;
  let estimate: KvEstimate | null = null;
  if (pinned === null && sizedCard && sizedWeights !== null) {
    const overhead = profilerOverhead(
      facts ?? { hiddenSize: null, intermediateSize: null, vocabSize: null, experts: null, overheadBytes: policy.vllm.overhead_bytes },
      {
        tp,
        ncclInProfile: vf.ncclInProfile,
        v0: vf.batchDefaults.engine === "v0",
        maxNumBatchedTokens: batch.maxNumBatchedTokens,
        maxNumSeqs: batch.maxNumSeqs,
        override: overheadMib !== undefined ? Math.round(overheadMib * MiB) : null,
      },
    );
    const graphsBytes = graphs && vf.cudaGraphsInBudget ? (graphMemoryOf?.bytes ?? 0) : 0;
    estimate = {
      // vLLM's budget is utilization × what CUDA reports, which the inventory may give apart from the size.
      bytes: estimatedKv({
        totalBytes: cudaTotalOf(sizedCard),
        utilization,
        weightsPerGpu: sizedWeights,
        overhead: overhead.bytes,
        graphsInBudget: graphsBytes,
      }),
      totalBytes: cudaTotalOf(sizedCard),
      utilization,
      weightsPerGpu: sizedWeights,
      overhead,
      graphsBytes,
    };
  }
  return {
    service,
    name: service.name,
    host: service.host,
    cards: seatCardsOf(service),
    tp,
    model,
    perToken,
    maxModelLen,
    maxModelLenSet: ownLen !== undefined,
    factor,
    required,
    pinned,
    utilization,
    overhead: overheadMib !== undefined ? Math.round(overheadMib * MiB) : policy.vllm.overhead_bytes,
    weights,
    weightsLoaded: weightsMib === undefined && loaded?.formula ? loaded : null,
    policy: seatPolicy,
    ownerPinned: seatPolicy?.pinned_bytes !== undefined,
    facts,
    source,
    sourceProblem,
    pp,
    ppPartition,
    vf,
    deployedVersion: v.deployed,
    versions: v.versions,
    variants: [],
    maxModelLenAuto,
    derived,
    request,
    requestProblem,
    batch,
    card: card ? { name: card.name ?? null, batchClass: cardClass } : null,
    graphs,
    graphMemory: graphMemoryOf,
    kvSource: pinned !== null ? "pinned" : estimate ? "estimated" : null,
    estimate,
  };
}

/**
 * With pipeline parallelism, the stage whose card keeps the least for KV: each stage's ranks take the
 * next TP cards (vLLM's rank order), hold that stage's weights, and are bounded by their smallest card.
 * Null without PP or without per-stage weights (the tightest card and the fullest stage then stand in).
 */
function stageCardsOf(
  service: Service,
  cards: readonly Card[],
  tp: number,
  pp: number,
  stageWeightsPerGpu: number[] | null,
): { card: Card; weights: number } | null {
  if (pp <= 1 || !stageWeightsPerGpu) return null;
  const indexes = seatCardsOf(service);
  let best: { card: Card; weights: number; left: number } | null = null;
  for (let s = 0; s < pp; s++) {
    const ranks = indexes.slice(s * tp, (s + 1) * tp);
    const stageCards = ranks
      .map((i) => cards.find((c) => c.host === service.host && c.index === i))
      .filter((c): c is Card => c !== undefined);
    if (stageCards.length === 0) continue;
    const card = stageCards.reduce((a, b) => (cudaTotalOf(b) < cudaTotalOf(a) ? b : a));
    const weights = stageWeightsPerGpu[s] ?? 0;
    const left = cudaTotalOf(card) - weights;
    if (best === null || left < best.left) best = { card, weights, left };
  }
  return best ? { card: best.card, weights: best.weights } : null;
}

/**
 * What caps the derived maximum for this seat: the config's sliding window when --disable-sliding-window
 * is set, or when the version turned Gemma-2's interleaved window off itself (PR #5908 until #10584);
 * the tokenizer's model_max_length.
 */
function maxLenCaps(service: Service, facts: ModelFacts, vf: VllmFacts): MaxLenCaps {
  const disabled =
    service.settings.disable_sliding_window?.value === true ||
    (vf.gemma2WindowCap && (facts.modelType ?? "") === "gemma2" && facts.slidingWindow !== null);
  return { slidingWindow: disabled ? facts.slidingWindow : null, tokenizerMaxLength: facts.tokenizerMaxLength };
}

export function vllmSeats(state: FleetState, policy: Policy, pack: RulesPack): VllmSeat[] {
  return state.services.filter((s) => sizesKvPerSeat(pack, s)).map((s) => seatOf(s, policy, pack, state));
}

/** On one of its cards: weights / TP + pin + overhead; a seat without a pin takes utilization × (CUDA) total. */
export function seatFootprint(seat: VllmSeat, card: Pick<Card, "totalBytes" | "cudaTotalBytes">): number {
  if (seat.pinned === null) return Math.round(seat.utilization * cudaTotalOf(card));
  return (seat.weights ?? 0) + seat.pinned + seat.overhead;
}

/** Every release a seat's variants stand for (the allowed ones, without a deployed version). */
export function assumedVersions(seat: VllmSeat): string[] {
  return seat.variants.flatMap((v) => v.versions);
}

/** The KV data every kv rule carries (docs/cli.md). */
export function kvData(seat: VllmSeat): Record<string, unknown> {
  return {
    vllm_version: seat.deployedVersion,
    ...(seat.deployedVersion === null ? { assumed_vllm_versions: assumedVersions(seat) } : {}),
    required_bytes: seat.required,
    pinned_bytes: seat.pinned,
    bytes_per_token: seat.perToken?.bytes ?? null,
    max_model_len: seat.maxModelLen,
    factor: seat.factor,
    request_bytes: seat.request?.requestBytes ?? null,
    layers: seat.request?.layers ?? null,
    kv_source: seat.kvSource,
    ...(seat.estimate ? { estimated_bytes: seat.estimate.bytes } : {}),
    // The catalog fields kvgate.yaml's `models:` entry overrode for this seat's model.
    ...(seat.source?.overridden?.length ? { model_overrides: seat.source.overridden } : {}),
  };
}

/** `ceil(1.25 × 40,960 tokens × 144 KiB / 0.5 GiB) × 0.5 GiB` */
export function requiredFormula(seat: VllmSeat, roundBytes: number): string {
  // A model whose layers are not all full attention (sliding window, chunked, state): the per-kind sum.
  // Layers of several kinds, or a pipeline (one stage's request, or the whole model's on 0.11–0.16): the request itself.
  if (seat.request && (seat.request.hybrid || seat.request.layers.mamba > 0 || seat.pp > 1)) {
    return (
      `ceil(${seat.factor} × ${size(seat.request.requestBytes)} for one ` +
      `${formatInt(seat.maxModelLen ?? 0)}-token request / ${size(roundBytes)}) × ${size(roundBytes)}`
    );
  }
  const b = seat.perToken?.bytes ?? 0;
  return `ceil(${seat.factor} × ${formatInt(seat.maxModelLen ?? 0)} tokens × ${size(b)} / ${size(roundBytes)}) × ${size(roundBytes)}`;
}

function originOf(seat: VllmSeat, setting: string): Origin | undefined {
  return seat.service.settings[setting]?.origin;
}

/** Where to report about a setting: its origin, else the MODEL line, else line 1 of the service file. */
export function placeOf(seat: VllmSeat, setting?: string): { file: string; line: number } {
  const own = setting ? originOf(seat, setting) : undefined;
  const o = own ?? seat.service.origins.model;
  // A setting to add, on a seat whose model an Ansible variable names (host_vars): it goes where the
  // template writes the flags, not into the variable (docs/playbooks.md#variables).
  if (!own && o?.yaml) {
    const at = flagsLineOf(seat.service);
    if (at) return at;
  }
  // No origin: where the seat is defined (a deploy's own line when no env file is committed).
  return o ? { file: o.file, line: o.line } : definitionOf(seat.service);
}

/** The line of the key that holds the seat's flags (VLLM_EXTRA_ARGS in a role's template). */
function flagsLineOf(service: Service): { file: string; line: number } | null {
  const key = service.env.flags.find((f) => f.fromKey)?.fromKey;
  const e = key === undefined ? undefined : service.env.entries.get(key);
  return e ? { file: e.file ?? service.env.file, line: e.line } : null;
}

/** The pin fix in the spelling the file already uses: its flag when a flag sets it, the flag inside the
 *  key that holds the file's flags (VLLM_EXTRA_ARGS), else KV_CACHE_MEMORY_BYTES. */
export function pinFix(seat: VllmSeat, bytes: number, pack: RulesPack): ValueFix {
  return (
    settingFix(pack, seat.service, "kv_pin", bytes) ?? {
      file: seat.service.file,
      line: null,
      key: "KV_CACHE_MEMORY_BYTES",
      value: String(bytes),
    }
  );
}

/** How to set the pin, as the fix writes it: `KV_CACHE_MEMORY_BYTES=8053063680 (7.5GiB)`. */
export function setPin(seat: VllmSeat, bytes: number, pack: RulesPack): string {
  return `${showFix(pinFix(seat, bytes, pack))} (${compact(bytes)})`;
}

/**
 * The longest max_model_len whose required KV (factor × one request, rounded up to kv.round) fits in
 * `availableBytes`, rounded down to a multiple of 1,024 tokens when that long; null when it cannot be
 * sized. vLLM's own search (estimate_max_model_len) over the same per-kind sum, with kvgate's margin.
 */
export function longestFitting(seat: VllmSeat, availableBytes: number, roundBytes: number): number | null {
  const budget = (Math.floor(availableBytes / roundBytes) * roundBytes) / seat.factor;
  const upTo = Math.max(1, seat.maxModelLen ?? seat.derived?.value ?? 1);
  let fit: number;
  if (seat.request && seat.facts) {
    fit = estimateMaxModelLen(seat.facts, requestInputs(seat), budget, upTo);
  } else if (seat.perToken) {
    fit = Math.min(upTo, Math.floor(budget / seat.perToken.bytes));
  } else {
    return null;
  }
  return fit >= 1024 ? fit - (fit % 1024) : fit;
}

/**
 * The cache dtype vLLM uses: `--kv-cache-dtype`, whose `auto` (or absence) is the model's dtype as
 * loaded, so `--dtype float32` makes a 4-byte cache (vllm/config/cache.py: auto follows
 * model_config.dtype). Other `--dtype` values keep 2 bytes, as `auto` of the config does.
 */
function effectiveKvDtype(service: Service): unknown {
  const kv = service.settings.kv_cache_dtype?.value;
  if (typeof kv === "string" && kv.trim().toLowerCase() !== "auto") return kv;
  const weights = service.settings.dtype?.value;
  return typeof weights === "string" && ["float32", "float"].includes(weights.trim().toLowerCase()) ? "float32" : kv;
}

/** The requestKv inputs of a seat, for re-sizing it at another length. */
export function requestInputs(seat: VllmSeat): Omit<KvInputs, "maxModelLen"> {
  const dtype = effectiveKvDtype(seat.service);
  return {
    tp: seat.tp,
    pp: seat.pp,
    kvCacheDtype: typeof dtype === "string" ? dtype : null,
    maxNumBatchedTokens: seat.batch.maxNumBatchedTokens,
    hybridKvCacheManager: seat.vf.hybridKvCacheManager,
    chunkedLocalHybrid: seat.vf.chunkedLocalHybrid,
    ppPartition: seat.ppPartition,
    ppRequestScope: seat.vf.ppRequestScope,
  };
}

/** The required KV of a seat at another context length (kv/context-headroom sizes the native maximum). */
export function requiredAt(seat: VllmSeat, maxModelLen: number, roundBytes: number): number | null {
  if (seat.facts && !(seat.perToken?.source === "setting")) {
    const r = requestKv(seat.facts, { ...requestInputs(seat), maxModelLen });
    return r.ok ? requiredForRequest(r.kv.requestBytes, seat.factor, roundBytes) : null;
  }
  if (seat.perToken) return requiredKv({ factor: seat.factor, maxModelLen, bytesPerToken: seat.perToken.bytes, roundBytes });
  return null;
}

/** A report's data without what names the version, to tell whether two releases fail alike. */
function withoutVersion(data: Record<string, unknown>): Record<string, unknown> {
  const { vllm_version: _v, assumed_vllm_versions: _a, ...rest } = data;
  return rest;
}

/** What a version-dependent check reports about one seat sized for one version. */
interface VersionedReport {
  data: Record<string, unknown>;
  severity?: Severity;
}

/**
 * A check whose outcome depends on the vLLM version, over every release the seat may run: with a
 * deployed version, that one; without, each allowed group (engines.vllm.versions). Failing on all of
 * them is the rule's finding; failing on some is a warning naming those releases (the deploy decides,
 * so the gate cannot). `data.versions_note` is the clause the message ends with.
 */
export function acrossVersions<R extends VersionedReport>(seat: VllmSeat, check: (variant: VllmSeat) => R | null): R[] {
  const results = seat.variants.map((variant) => ({ variant, report: check(variant) }));
  const failing = results.filter((x): x is { variant: VllmSeat; report: R } => x.report !== null);
  const last = failing.at(-1);
  if (!last) return [];
  if (seat.deployedVersion !== null) return [last.report];
  const all = assumedVersions(seat);
  const failingVersions = failing.flatMap((x) => x.variant.versions);
  const some = failing.length < results.length;
  // Where every release fails alike (a pin short of the context), the version does not matter.
  const same = failing.every((x) => JSON.stringify(withoutVersion(x.report.data)) === JSON.stringify(withoutVersion(last.report.data)));
  const note = some
    ? ` (on vLLM ${versionsLabel(failingVersions)} only, of the ${versionsLabel(all)} ` +
      `engines.vllm.versions allows: no version is named, so set VLLM_VERSION or tag the image)`
    : same || all.length === 0
      ? ""
      : ` (no vLLM version named: fails on every allowed release, ${versionsLabel(all)}; figures for ${versionsLabel(last.variant.versions)})`;
  return [
    {
      ...last.report,
      ...(some ? { severity: "warning" as const } : {}),
      data: { ...last.report.data, failing_vllm_versions: failingVersions, versions_note: note },
    },
  ];
}
