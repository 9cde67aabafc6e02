// Everything the KV rules, the card table and the planner need about one seat (a service whose engine
// sizes its KV per seat: vLLM), computed once from the service's settings, the policy and the catalog.
import type { ModelSpec, Policy, SeatPolicy } from "../config/policy.js";
import { cudaTotalOf, type Card, type FleetState, type Origin, type Service } from "../model/types.js";
import type { RulesPack } from "../rules/pack.js";
import { sizesKvPerSeat } from "../model/engine.js";
import { imageEntries } from "../model/recognise.js";
import { MiB } from "../units/bytes.js";
import { bytesPerToken, perTokenOfModel, requiredKv, type PerToken } from "./bytes.js";
import { compact, formatInt, size } from "./format.js";
import { showFix, type ValueFix } from "../model/value-fix.js";
import { settingFix } from "../model/setting-fix.js";
import type { ModelFacts } from "./facts.js";
import type { ConfigProblem } from "./hf-config.js";
import { modelSourceOf, type ModelSource } from "./model-source.js";
import { estimateMaxModelLen, requestKv, requiredForRequest, type KvInputs, type KvProblem, type RequestKv } from "./attention.js";
import { derivedMaxModelLen, withConfigOverrides, type DerivedMaxLen } from "./max-len.js";
import { CUDA_GRAPH_ESTIMATE, defaultBatchLimits, estimatedKv, profilerOverhead, type Overhead } from "./overhead.js";
import { stageWeights } from "./parallel.js";
import { deployedWeights, type DeployedWeights } from "./quantization.js";
import { versionFromImage, vllmFacts, vllmVersionFacts, type VllmFacts } from "./vllm-versions.js";

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
  /** The vLLM version's facts (VLLM_VERSION, the image tag, else the newest known). */
  vf: VllmFacts;
  /** --max-model-len auto: vLLM fits the length to memory at boot; kvgate cannot size it ahead. */
  maxModelLenAuto: boolean;
  /** The model's derived maximum (vLLM's _get_and_verify_max_len), when the facts are known. */
  derived: DerivedMaxLen | null;
  /** The KV one max-length request needs, per vLLM's KV cache specs (null with KV_BYTES_PER_TOKEN). */
  request: RequestKv | null;
  requestProblem: KvProblem | null;
  batch: { maxNumBatchedTokens: number; maxNumSeqs: number };
  /** CUDA graphs are captured (no --enforce-eager). */
  graphs: boolean;
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

export function seatCardsOf(s: Service): number[] {
  if (s.gpus.length > 0) return s.gpus;
  // vLLM's default: the first TP × PP devices (one per rank).
  const pp = numSetting(s, "pp") ?? 1;
  return Array.from({ length: Math.max(1, s.tp) * Math.max(1, pp) }, (_, i) => i);
}

/** VLLM_VERSION, else the tag of the image the service runs (`vllm/vllm-openai:v0.11.0`), else null (newest known). */
function vllmVersionOf(service: Service): string | null {
  const setting = service.settings.vllm_version?.value;
  const declared = typeof setting === "string" && setting !== "" ? setting : service.env.entries.get("VLLM_VERSION")?.value.trim();
  if (declared) return declared;
  for (const entry of imageEntries(service.env)) {
    const v = versionFromImage(entry.value);
    if (v) return v;
  }
  return null;
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
  const seat = computeSeat(service, policy, pack, state);
  seats.set(service, { policy, pack, modelFiles: state.modelFiles, cards: state.cards, seat });
  return seat;
}

function computeSeat(service: Service, policy: Policy, pack: RulesPack, state: Pick<FleetState, "modelFiles" | "cards">): VllmSeat {
  const read = modelSourceOf(service, state, policy, pack);
  const source = read.ok ? read.source : null;
  const sourceProblem = read.ok ? null : read.problem;
  const model = source?.spec ?? null;
  const tp = Math.max(1, service.tp);
  const pp = Math.max(1, numSetting(service, "pp") ?? 1);
  const vf = vllmFacts(vllmVersionOf(service), vllmVersionFacts(pack.engines));
  const kvDtype = service.settings.kv_cache_dtype?.value;
  const ownPerToken = bytesPerToken(null, service);
  const perToken = ownPerToken ?? (model ? perTokenOfModel(model, service.tp, kvDtype) : null);
  const ownLen = numSetting(service, "max_model_len");
  const maxModelLenAuto = service.settings.max_model_len?.value === "auto";
  const facts = source
    ? withConfigOverrides(source.facts, service.settings.hf_overrides?.value, service.settings.rope_scaling?.value)
    : null;
  const derivedRead = facts ? derivedMaxModelLen(facts) : null;
  const derived = derivedRead && !("field" in derivedRead) ? derivedRead : null;
  // The catalog's max_context is the length a seat without MAX_MODEL_LEN runs at; a committed config
  // gives vLLM's own derived default (rope scaling, longrope's original length).
  const defaultLen = source?.from === "config.json" && derived ? derived.defaultLen : (model?.max_context ?? null);
  const maxModelLen = ownLen ?? defaultLen;
  const seatPolicy = policy.kv.seats[service.name];
  const factor = seatPolicy?.factor ?? policy.kv.factor;
  const card = tightestCard(service, state.cards);
  const batch = {
    ...defaultBatchLimits(card?.totalBytes ?? 0, "", vf.batchDefaults),
    ...(numSetting(service, "max_num_batched_tokens") !== undefined
      ? { maxNumBatchedTokens: numSetting(service, "max_num_batched_tokens") as number }
      : {}),
    ...(numSetting(service, "max_num_seqs") !== undefined ? { maxNumSeqs: numSetting(service, "max_num_seqs") as number } : {}),
  };
  let request: RequestKv | null = null;
  let requestProblem: KvProblem | null = null;
  if (!ownPerToken && facts && maxModelLen !== null) {
    const r = requestKv(facts, {
      maxModelLen,
      tp,
      pp,
      kvCacheDtype: typeof kvDtype === "string" ? kvDtype : null,
      maxNumBatchedTokens: batch.maxNumBatchedTokens,
      hybridKvCacheManager: vf.hybridKvCacheManager,
      chunkedLocalHybrid: vf.chunkedLocalHybrid,
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
          ? stageWeights(loaded.bytes, facts, tp, pp).perGpu
          : Math.round(loaded.bytes / tp)
        : loaded
          ? Math.round(loaded.bytes / tp)
          : null;
  // A seat that names its vLLM version gets that version's default (0.9 before 0.92); else the policy's.
  const utilization =
    numSetting(service, "gpu_memory_utilization") ?? (vf.version !== null ? vf.defaultUtilization : policy.vllm.default_utilization);
  const pinned = numSetting(service, "kv_pin") ?? null;
  const graphs = service.settings.enforce_eager?.value !== true;
  let estimate: KvEstimate | null = null;
  if (pinned === null && card && weights !== null) {
    const overhead = profilerOverhead(
      facts ?? { hiddenSize: null, intermediateSize: null, vocabSize: null, experts: null, overheadBytes: policy.vllm.overhead_bytes },
      {
        tp,
        maxNumBatchedTokens: batch.maxNumBatchedTokens,
        maxNumSeqs: batch.maxNumSeqs,
        override: overheadMib !== undefined ? Math.round(overheadMib * MiB) : null,
      },
    );
    const graphsBytes = graphs && vf.cudaGraphsInBudget ? CUDA_GRAPH_ESTIMATE : 0;
    estimate = {
      // vLLM's budget is utilization × what CUDA reports, which the inventory may give apart from the size.
      bytes: estimatedKv({
        totalBytes: cudaTotalOf(card),
        utilization,
        weightsPerGpu: weights,
        overhead: overhead.bytes,
        graphsInBudget: graphsBytes,
      }),
      totalBytes: cudaTotalOf(card),
      utilization,
      weightsPerGpu: weights,
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
    vf,
    maxModelLenAuto,
    derived,
    request,
    requestProblem,
    batch,
    graphs,
    kvSource: pinned !== null ? "pinned" : estimate ? "estimated" : null,
    estimate,
  };
}

export function vllmSeats(state: FleetState, policy: Policy, pack: RulesPack): VllmSeat[] {
  return state.services.filter((s) => sizesKvPerSeat(pack, s)).map((s) => seatOf(s, policy, pack, state));
}

/** On one of its cards: weights / TP + pin + overhead; a seat without a pin takes utilization × (CUDA) total. */
export function seatFootprint(seat: VllmSeat, card: Pick<Card, "totalBytes" | "cudaTotalBytes">): number {
  if (seat.pinned === null) return Math.round(seat.utilization * cudaTotalOf(card));
  return (seat.weights ?? 0) + seat.pinned + seat.overhead;
}

/** The KV data every kv rule carries (docs/cli.md). */
export function kvData(seat: VllmSeat): Record<string, unknown> {
  return {
    required_bytes: seat.required,
    pinned_bytes: seat.pinned,
    bytes_per_token: seat.perToken?.bytes ?? null,
    max_model_len: seat.maxModelLen,
    factor: seat.factor,
    request_bytes: seat.request?.requestBytes ?? null,
    layers: seat.request?.layers ?? null,
    kv_source: seat.kvSource,
    ...(seat.estimate ? { estimated_bytes: seat.estimate.bytes } : {}),
  };
}

/** `ceil(1.25 × 40,960 tokens × 144 KiB / 0.5 GiB) × 0.5 GiB` */
export function requiredFormula(seat: VllmSeat, roundBytes: number): string {
  // A model whose layers are not all full attention (sliding window, chunked, state): the per-kind sum.
  if (seat.request && (seat.request.hybrid || seat.request.layers.mamba > 0)) {
    return `ceil(${seat.factor} × ${size(seat.request.requestBytes)} for one ${formatInt(seat.maxModelLen ?? 0)}-token request / ${size(roundBytes)}) × ${size(roundBytes)}`;
  }
  const b = seat.perToken?.bytes ?? 0;
  return `ceil(${seat.factor} × ${formatInt(seat.maxModelLen ?? 0)} tokens × ${size(b)} / ${size(roundBytes)}) × ${size(roundBytes)}`;
}

function originOf(seat: VllmSeat, setting: string): Origin | undefined {
  return seat.service.settings[setting]?.origin;
}

/** Where to report about a setting: its origin, else the MODEL line, else line 1 of the service file. */
export function placeOf(seat: VllmSeat, setting?: string): { file: string; line: number } {
  const o = (setting ? originOf(seat, setting) : undefined) ?? seat.service.origins.model;
  return o ? { file: o.file, line: o.line } : { file: seat.service.file, line: 1 };
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

/** The requestKv inputs of a seat, for re-sizing it at another length. */
export function requestInputs(seat: VllmSeat): Omit<KvInputs, "maxModelLen"> {
  const dtype = seat.service.settings.kv_cache_dtype?.value;
  return {
    tp: seat.tp,
    pp: seat.pp,
    kvCacheDtype: typeof dtype === "string" ? dtype : null,
    maxNumBatchedTokens: seat.batch.maxNumBatchedTokens,
    hybridKvCacheManager: seat.vf.hybridKvCacheManager,
    chunkedLocalHybrid: seat.vf.chunkedLocalHybrid,
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
