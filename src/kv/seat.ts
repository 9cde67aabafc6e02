// Everything the KV rules, the card table and the planner need about one seat (a service whose engine
// sizes its KV per seat: vLLM), computed once from the service's settings, the policy and the catalog.
import type { ModelSpec, Policy, SeatPolicy } from "../config/policy.js";
import type { Card, FleetState, Origin, Service } from "../model/types.js";
import type { RulesPack } from "../rules/pack.js";
import { lookupModel } from "../rules/models.js";
import { sizesKvPerSeat } from "../model/engine.js";
import { MiB } from "../units/bytes.js";
import { bytesPerToken, requiredKv, type PerToken } from "./bytes.js";
import { compact, formatInt, size } from "./format.js";
import { showFix, type ValueFix } from "../fix/types.js";

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
  policy: SeatPolicy | undefined;
  /** Set when kv.seats.<name>.pinned names the owner's number. */
  ownerPinned: boolean;
}


function numSetting(s: Service, name: string): number | undefined {
  const v = s.settings[name]?.value;
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

export function seatCardsOf(s: Service): number[] {
  if (s.gpus.length > 0) return s.gpus;
  return Array.from({ length: Math.max(1, s.tp) }, (_, i) => i);
}

export function seatOf(service: Service, policy: Policy, pack: RulesPack): VllmSeat {
  const model = lookupModel(pack.models(), policy.models, service.model);
  const perToken = bytesPerToken(model, service);
  const ownLen = numSetting(service, "max_model_len");
  const maxModelLen = ownLen ?? model?.max_context ?? null;
  const seatPolicy = policy.kv.seats[service.name];
  const factor = seatPolicy?.factor ?? policy.kv.factor;
  const required = perToken && maxModelLen !== null ? requiredKv({ factor, maxModelLen, bytesPerToken: perToken.bytes, roundBytes: policy.kv.round_bytes }) : null;
  const weightsMib = numSetting(service, "weights_mib");
  const overheadMib = numSetting(service, "overhead_mib");
  const tp = Math.max(1, service.tp);
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
    pinned: numSetting(service, "kv_pin") ?? null,
    utilization: numSetting(service, "gpu_memory_utilization") ?? policy.vllm.default_utilization,
    overhead: overheadMib !== undefined ? Math.round(overheadMib * MiB) : policy.vllm.overhead_bytes,
    weights: weightsMib !== undefined ? Math.round(weightsMib * MiB) : model ? Math.round(model.weights_bytes / tp) : null,
    policy: seatPolicy,
    ownerPinned: seatPolicy?.pinned_bytes !== undefined,
  };
}

export function vllmSeats(state: FleetState, policy: Policy, pack: RulesPack): VllmSeat[] {
  return state.services.filter((s) => sizesKvPerSeat(pack, s)).map((s) => seatOf(s, policy, pack));
}

/** On one of its cards: weights / TP + pin + overhead; a seat without a pin takes utilization × total. */
export function seatFootprint(seat: VllmSeat, card: Pick<Card, "totalBytes">): number {
  if (seat.pinned === null) return Math.round(seat.utilization * card.totalBytes);
  return (seat.weights ?? 0) + seat.pinned + seat.overhead;
}

/** The KV data every kv rule carries (contract section 10). */
export function kvData(seat: VllmSeat): Record<string, unknown> {
  return {
    required_bytes: seat.required,
    pinned_bytes: seat.pinned,
    bytes_per_token: seat.perToken?.bytes ?? null,
    max_model_len: seat.maxModelLen,
    factor: seat.factor,
  };
}

/** `ceil(1.25 × 40,960 tokens × 144 KiB / 0.5 GiB) × 0.5 GiB` */
export function requiredFormula(seat: VllmSeat, roundBytes: number): string {
  const b = seat.perToken?.bytes ?? 0;
  return `ceil(${seat.factor} × ${formatInt(seat.maxModelLen ?? 0)} tokens × ${size(b)} / ${size(roundBytes)}) × ${size(roundBytes)}`;
}

export function originOf(seat: VllmSeat, setting: string): Origin | undefined {
  return seat.service.settings[setting]?.origin;
}

/** Where to report about a setting: its origin, else the MODEL line, else line 1 of the service file. */
export function placeOf(seat: VllmSeat, setting?: string): { file: string; line: number } {
  const o = (setting ? originOf(seat, setting) : undefined) ?? seat.service.origins.model;
  return o ? { file: o.file, line: o.line } : { file: seat.service.file, line: 1 };
}

/** The pin fix in the spelling the file already uses: its flag when a flag sets it, else KV_CACHE_MEMORY_BYTES. */
export function pinFix(seat: VllmSeat, bytes: number): ValueFix {
  const o = originOf(seat, "kv_pin");
  if (o) return { file: o.file, line: o.line, key: o.name, value: String(bytes) };
  return { file: seat.service.file, line: null, key: "KV_CACHE_MEMORY_BYTES", value: String(bytes) };
}

/** How to set the pin, as the fix writes it: `KV_CACHE_MEMORY_BYTES=8053063680 (7.5GiB)`. */
export function setPin(seat: VllmSeat, bytes: number): string {
  return `${showFix(pinFix(seat, bytes))} (${compact(bytes)})`;
}
