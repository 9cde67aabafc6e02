// `kvgate explain` for vLLM seats and cards: the JSON of docs/cli.md (merged by
// src/explain into each service object by name) and the per-card terminal table.
import type { Policy } from "../config/policy.js";
import type { FleetState } from "../model/types.js";
import type { RulesPack } from "../rules/pack.js";
import { cardUsage, type CardUsage } from "../kv/card-usage.js";
import { worstBootOrder, type WorstBoot } from "../kv/boot-order.js";
import { assumedVersions, seatFootprint, vllmSeats } from "../kv/seat.js";
import { yarnOf } from "../kv/yarn.js";

interface VllmServiceExplain {
  name: string;
  model_id: string | null;
  max_model_len: number | null;
  kv: {
    bytes_per_token: number | null;
    required_bytes: number | null;
    pinned_bytes: number | null;
    factor: number;
    source: string | null;
    formula: string | null;
    /** Where the model facts came from: kvgate.yaml, config.json (model_file) or catalog. */
    model_source: string | null;
    model_file: string | null;
    /** The KV one max-length request needs (vLLM's per-spec sum) and its parts per layer kind. */
    request_bytes: number | null;
    layers: Record<string, number> | null;
    per_kind: { kind: string; count: number; slots: number; blocks: number; bytes: number }[] | null;
    kv_source: "pinned" | "estimated" | null;
    /** An unpinned seat: what vLLM's profiler will leave for KV, and the overhead it was estimated with. */
    estimated_bytes: number | null;
    overhead_estimate: { bytes: number; formula: string } | null;
    /** A kvgate.yaml `models:` entry merged over the catalog's: the fields it overrode. */
    model_overrides: string[] | null;
    /** The CUDA graphs it captures, per card (capture sizes × layers). */
    graphs: { bytes: number; formula: string } | null;
  };
  /** The deployed vLLM version, or null; then the releases it was sized for (engines.vllm.versions). */
  vllm_version: string | null;
  assumed_vllm_versions: string[] | null;
  /** Its tightest card's name and vLLM's batch budget for it (EngineArgs.get_batch_defaults). */
  card: { name: string | null; batch_class: string } | null;
  batch: { max_num_batched_tokens: number; max_num_seqs: number };
  /** On each of its cards (the same on every card unless the cards differ and the seat is unpinned). */
  footprint_bytes: number | null;
  footprints: { host: string | null; gpu: number; bytes: number }[];
  weights_bytes: number | null;
  /** How the launch changed the checkpoint's weights (`--quantization fp8` on a bf16 checkpoint, `--dtype`). */
  weights_formula: string | null;
  overhead_bytes: number;
  utilization: number;
  yarn: { factor: number; original: number | null } | null;
}

interface GpuExplain {
  host: string;
  index: number;
  name: string | null;
  total_bytes: number;
  reserve_bytes: number;
  used_bytes: number;
  spare_bytes: number;
  /** Everyone on the card: seats, tenants, other engines' services. */
  tenants: string[];
  entries: {
    kind: string;
    name: string;
    weights_bytes?: number | null;
    kv_bytes?: number;
    overhead_bytes?: number;
    footprint_bytes: number | null;
    pinned?: boolean;
  }[];
  radiance: boolean;
  /** A shared card with a vLLM seat: the boot order that leaves the least free memory, and that figure. */
  worst_boot: WorstBoot | null;
}

export interface VllmExplain {
  services: VllmServiceExplain[];
  gpus: GpuExplain[];
  usages: CardUsage[];
}

function gpuJson(l: CardUsage): GpuExplain {
  return {
    host: l.host,
    index: l.index,
    name: l.name ?? null,
    total_bytes: l.total_bytes,
    reserve_bytes: l.reserve_bytes,
    used_bytes: l.used_bytes,
    spare_bytes: l.spare_bytes,
    tenants: l.entries.map((e) => e.name),
    entries: l.entries.map((e) =>
      e.kind === "seat"
        ? {
            kind: "seat",
            name: e.name,
            weights_bytes: e.weights_bytes,
            kv_bytes: e.kv_bytes,
            overhead_bytes: e.overhead_bytes,
            footprint_bytes: e.footprint_bytes,
            pinned: e.pinned,
          }
        : e.kind === "tenant"
          ? { kind: "tenant", name: e.name, footprint_bytes: e.footprint_bytes }
          : { kind: "other", name: e.name, footprint_bytes: null },
    ),
    radiance: l.ledgerSized,
    worst_boot: worstBootOrder(l),
  };
}

export function explainVllm(state: FleetState, policy: Policy, pack: RulesPack): VllmExplain {
  const usages = cardUsage(state, policy, pack);
  const services = vllmSeats(state, policy, pack).map((seat): VllmServiceExplain => {
    const footprints = seat.cards.flatMap((gpu) => {
      const card = state.cards.find((c) => c.host === seat.host && c.index === gpu);
      return card ? [{ host: seat.host, gpu, bytes: seatFootprint(seat, card) }] : [];
    });
    const y = yarnOf(seat.service);
    return {
      name: seat.name,
      model_id: seat.model?.id ?? null,
      max_model_len: seat.maxModelLen,
      kv: {
        bytes_per_token: seat.perToken?.bytes ?? null,
        required_bytes: seat.required,
        pinned_bytes: seat.pinned,
        factor: seat.factor,
        source: seat.perToken?.source ?? null,
        formula: seat.perToken?.formula ?? null,
        model_source: seat.source?.from ?? null,
        model_file: seat.source?.file ?? null,
        request_bytes: seat.request?.requestBytes ?? null,
        layers: seat.request?.layers ?? null,
        per_kind:
          seat.request?.perKind.map((k) => ({ kind: k.kind, count: k.count, slots: k.slots, blocks: k.blocks, bytes: k.bytes })) ?? null,
        kv_source: seat.kvSource,
        estimated_bytes: seat.estimate?.bytes ?? null,
        overhead_estimate: seat.estimate ? { bytes: seat.estimate.overhead.bytes, formula: seat.estimate.overhead.formula } : null,
        model_overrides: seat.source?.overridden ?? null,
        graphs: seat.graphMemory ? { bytes: seat.graphMemory.bytes, formula: seat.graphMemory.formula } : null,
      },
      vllm_version: seat.deployedVersion,
      assumed_vllm_versions: seat.deployedVersion === null ? assumedVersions(seat) : null,
      card: seat.card ? { name: seat.card.name, batch_class: seat.card.batchClass } : null,
      batch: { max_num_batched_tokens: seat.batch.maxNumBatchedTokens, max_num_seqs: seat.batch.maxNumSeqs },
      footprint_bytes: footprints[0]?.bytes ?? (seat.pinned !== null ? (seat.weights ?? 0) + seat.pinned + seat.overhead : null),
      footprints,
      weights_bytes: seat.weights,
      weights_formula: seat.weightsLoaded?.formula ?? null,
      overhead_bytes: seat.overhead,
      utilization: seat.utilization,
      yarn: y ? { factor: y.factor, original: y.original } : null,
    };
  });
  return { services, gpus: usages.map(gpuJson), usages };
}
