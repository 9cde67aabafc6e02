import { describe, expect, it } from "vitest";
import { kvCoversContext } from "../../src/checks/kv-covers-context.js";
import { kvOversized } from "../../src/checks/kv-oversized.js";
import { kvException } from "../../src/checks/kv-exception.js";
import { kvUnpinnedSharedCard } from "../../src/checks/kv-unpinned-shared-card.js";
import { kvBootCheck } from "../../src/checks/kv-boot-check.js";
import { kvContextMax } from "../../src/checks/kv-context-max.js";
import { kvLongContextOverride } from "../../src/checks/kv-long-context-override.js";
import { kvYarn } from "../../src/checks/kv-yarn.js";
import { genOutputCap } from "../../src/checks/gen-output-cap.js";
import { engineUnknownModel } from "../../src/checks/engine-unknown-model.js";
import { gpuFits } from "../../src/checks/gpu-fits.js";
import { checks } from "../../src/checks/groups/kv.js";
import type { Check } from "../../src/checks/define.js";
import { GiB, fleet, policyOf, run, seat, tenant, voices } from "./fixtures.js";

const c = (x: unknown) => x as Check;
const CAP = { "--override-generation-config": '{"max_new_tokens":8192}' };
const yarn4 = { "--hf-overrides": '{"rope_scaling":{"rope_type":"yarn","factor":4,"original_max_position_embeddings":32768}}' };

describe("kv group", () => {
  it("registers every rule of sections 4 and 5 in id order", () => {
    const ids = checks.map((k) => k.id);
    expect(ids).toEqual(["engine/unknown-model", "gen/output-cap", "gpu/fits", "kv/boot-check", "kv/context-max", "kv/covers-context", "kv/exception", "kv/long-context-override", "kv/oversized", "kv/unpinned-shared-card", "kv/yarn"]);
  });
});

describe("kv/covers-context", () => {
  it("refuses the contract's example with the arithmetic and what to set", () => {
    const [r, ...rest] = run(c(kvCoversContext), fleet([voices({ KV_CACHE_MEMORY_BYTES: "6442450944" })]));
    expect(rest).toHaveLength(0);
    expect(r?.text).toBe("voices: KV pin 6 GiB < required 7.5 GiB = ceil(1.25 × 40,960 tokens × 144 KiB / 0.5 GiB) × 0.5 GiB; set KV_CACHE_MEMORY_BYTES=8053063680 (7.5GiB)");
    expect(r?.data).toMatchObject({ required_bytes: 8_053_063_680, pinned_bytes: 6_442_450_944, bytes_per_token: 147_456, max_model_len: 40_960, factor: 1.25 });
    expect(r).toMatchObject({ file: "scripts/voices.env", line: 6, service: "voices" });
    expect(r?.status).toBeUndefined();
  });

  it("passes a pin that covers the requirement exactly", () => {
    expect(run(c(kvCoversContext), fleet([voices()]))).toEqual([]);
  });

  it("halves the requirement at TP 2 (73,728 B/token per GPU → 4 GiB)", () => {
    const s = seat("big", { MODEL: "Qwen/Qwen3-8B", GPU: "0,1", TP: "2", MAX_MODEL_LEN: "40960", KV_CACHE_MEMORY_BYTES: String(3.5 * GiB) });
    const [r] = run(c(kvCoversContext), fleet([s]));
    expect(r?.data).toMatchObject({ bytes_per_token: 73_728, required_bytes: 4 * GiB, pinned_bytes: 3.5 * GiB });
    expect(run(c(kvCoversContext), fleet([seat("big", { MODEL: "Qwen/Qwen3-8B", GPU: "0,1", TP: "2", MAX_MODEL_LEN: "40960", KV_CACHE_MEMORY_BYTES: String(4 * GiB) })]))).toEqual([]);
  });

  it("halves it with an fp8 KV cache, and reads a flag spelling back in the hint", () => {
    const s = voices({ KV_CACHE_DTYPE: "fp8", KV_CACHE_MEMORY_BYTES: undefined }, { "--kv-cache-memory-bytes": "3G" });
    const [r] = run(c(kvCoversContext), fleet([s]));
    expect(r?.data).toMatchObject({ bytes_per_token: 73_728, required_bytes: 4 * GiB, pinned_bytes: 3 * GiB });
    expect(r?.text).toContain("set --kv-cache-memory-bytes 4294967296 (4GiB)");
  });

  it("uses the seat's factor from kv.seats (voices 1.07 → 6.5 GiB)", () => {
    const policy = policyOf({ kv: { seats: { voices: { factor: 1.07 } } } });
    expect(run(c(kvCoversContext), fleet([voices({ KV_CACHE_MEMORY_BYTES: String(6.5 * GiB) })], [], policy), policy)).toEqual([]);
    const [r] = run(c(kvCoversContext), fleet([voices({ KV_CACHE_MEMORY_BYTES: String(6 * GiB) })], [], policy), policy);
    expect(r?.data).toMatchObject({ factor: 1.07, required_bytes: 6.5 * GiB });
  });

  it("reports an owner-pinned seat as exempt, naming the owner", () => {
    const policy = policyOf({ kv: { seats: { "gen-small": { pinned: "5.5GiB", by: "Prime" } } } });
    const s = seat("gen-small", { MODEL: "Qwen/Qwen3-4B-Instruct-2507", MAX_MODEL_LEN: "32768", KV_CACHE_MEMORY_BYTES: "5905580032" });
    const [r] = run(c(kvCoversContext), fleet([s], [], policy), policy);
    expect(r).toMatchObject({ status: "exempt" });
    expect(r?.reason).toContain("Prime");
    expect(r?.data).toMatchObject({ required_bytes: 6 * GiB, pinned_bytes: 5.5 * GiB });
  });

  it("leaves other engines alone", () => {
    expect(run(c(kvCoversContext), fleet([seat("r", { ENGINE: "radiance", MODEL: "Qwen/Qwen3-8B" })]))).toEqual([]);
  });
});

describe("kv/oversized", () => {
  it("notes a pin a rounding step above the requirement, with what could be released", () => {
    const [r] = run(c(kvOversized), fleet([voices({ KV_CACHE_MEMORY_BYTES: String(9 * GiB) })]));
    expect(r?.data).toMatchObject({ release_bytes: 1.5 * GiB, required_bytes: 7.5 * GiB, pinned_bytes: 9 * GiB });
    expect(r?.text).toContain("1.5 GiB could be released");
  });
  it("passes a pin less than one step above", () => {
    expect(run(c(kvOversized), fleet([voices({ KV_CACHE_MEMORY_BYTES: String(Math.round(7.9 * GiB)) })]))).toEqual([]);
  });
});

describe("kv/exception", () => {
  const policy = policyOf({ kv: { seats: { "gen-small": { pinned: "5.5GiB", by: "Prime" } } } });
  const gen = (pin: string | undefined) => seat("gen-small", { MODEL: "Qwen/Qwen3-4B-Instruct-2507", MAX_MODEL_LEN: "32768", KV_CACHE_MEMORY_BYTES: pin });
  it("refuses an owner-pinned seat pinned 0.5 GiB off, naming the owner", () => {
    const [r] = run(c(kvException), fleet([gen(String(6 * GiB))], [], policy), policy);
    expect(r?.text).toBe("gen-small: KV pin 6 GiB ≠ Prime's 5.5 GiB (kv.seats.gen-small.pinned); set KV_CACHE_MEMORY_BYTES=5905580032 (5.5GiB), or ask Prime to change kv.seats.gen-small");
    expect(r?.data).toMatchObject({ owner_bytes: 5.5 * GiB, pinned_bytes: 6 * GiB });
  });
  it("refuses the seat without a pin", () => {
    expect(run(c(kvException), fleet([gen(undefined)], [], policy), policy).map((r) => r.message)).toEqual(["unpinned"]);
  });
  it("passes the owner's exact number", () => {
    expect(run(c(kvException), fleet([gen("5905580032")], [], policy), policy)).toEqual([]);
  });
});

describe("kv/unpinned-shared-card", () => {
  it("refuses a seat with only --gpu-memory-utilization on a card shared with a tenant", () => {
    const s = voices({ KV_CACHE_MEMORY_BYTES: undefined }, { "--gpu-memory-utilization": "0.45" });
    const [r] = run(c(kvUnpinnedSharedCard), fleet([s], [tenant("parakeet-nemo", 0, 3 * GiB)]));
    expect(r?.data).toMatchObject({ neighbours: ["parakeet-nemo"], utilization: 0.45, required_bytes: 7.5 * GiB, pinned_bytes: null });
    expect(r?.text).toContain("set KV_CACHE_MEMORY_BYTES=8053063680 (7.5GiB)");
  });
  it("passes the same seat alone on its card, and a pinned seat on a shared card", () => {
    const s = voices({ KV_CACHE_MEMORY_BYTES: undefined }, { "--gpu-memory-utilization": "0.45" });
    expect(run(c(kvUnpinnedSharedCard), fleet([s]))).toEqual([]);
    expect(run(c(kvUnpinnedSharedCard), fleet([voices()], [tenant("parakeet-nemo", 0, 3 * GiB)]))).toEqual([]);
  });
});

describe("kv/boot-check", () => {
  it("fails two seats on one card both at the default 0.92", () => {
    const a = voices({ KV_CACHE_MEMORY_BYTES: undefined });
    const b = seat("coder", { MODEL: "Qwen/Qwen2.5-Coder-7B-Instruct" });
    const rs = run(c(kvBootCheck), fleet([a, b]));
    expect(rs.map((r) => r.service)).toEqual(["voices", "coder"]);
    const asked = Math.round(0.92 * 96 * GiB);
    expect(rs[0]?.data).toMatchObject({ utilization: 0.92, total_bytes: 96 * GiB, asked_bytes: asked, others_bytes: asked, free_bytes: 96 * GiB - asked, max_utilization: 0.08 });
  });
  it("fails a pinned seat whose utilization asks more than the neighbours leave", () => {
    const a = voices(); // 15.3 GiB weights + 7.5 GiB + 2 GiB
    const b = seat("coder", { MODEL: "Qwen/Qwen2.5-Coder-7B-Instruct", MAX_MODEL_LEN: "32768", KV_CACHE_MEMORY_BYTES: String(2.5 * GiB), GPU_MEMORY_UTILIZATION: "0.9" });
    const rs = run(c(kvBootCheck), fleet([a, b]));
    expect(rs.map((r) => r.service)).toEqual(["voices", "coder"]);
    expect(rs[1]?.data).toMatchObject({ utilization: 0.9 });
  });
  it("passes pinned seats that ask for little enough to boot last", () => {
    const a = voices({ GPU_MEMORY_UTILIZATION: "0.3" });
    const b = seat("coder", { MODEL: "Qwen/Qwen2.5-Coder-7B-Instruct", MAX_MODEL_LEN: "32768", KV_CACHE_MEMORY_BYTES: String(2.5 * GiB), GPU_MEMORY_UTILIZATION: "0.3" });
    expect(run(c(kvBootCheck), fleet([a, b]))).toEqual([]);
  });
});

describe("kv/context-max", () => {
  it("refuses a context above the native maximum without YaRN", () => {
    const [r] = run(c(kvContextMax), fleet([voices({ MAX_MODEL_LEN: "65536" })]));
    expect(r?.message).toBe("native");
    expect(r?.data).toMatchObject({ max_model_len: 65_536, max_context: 40_960 });
    expect(r?.text).toContain("> Qwen/Qwen3-8B's native 40,960");
  });
  it("passes a context within 4 × 32,768 with YaRN factor 4 (hf_overrides rope_scaling)", () => {
    expect(run(c(kvContextMax), fleet([voices({ MAX_MODEL_LEN: "131072" }, yarn4)]))).toEqual([]);
  });
  it("passes the same with rope_parameters and with the older --rope-scaling", () => {
    const rp = { "--hf-overrides": '{"rope_parameters":{"rope_type":"yarn","factor":4,"original_max_position_embeddings":32768}}' };
    const old = { "--rope-scaling": '{"type":"yarn","factor":4,"original_max_position_embeddings":32768}' };
    expect(run(c(kvContextMax), fleet([voices({ MAX_MODEL_LEN: "131072" }, rp)]))).toEqual([]);
    expect(run(c(kvContextMax), fleet([voices({ MAX_MODEL_LEN: "131072" }, old)]))).toEqual([]);
  });
  it("refuses a context above original × factor with YaRN", () => {
    const [r] = run(c(kvContextMax), fleet([voices({ MAX_MODEL_LEN: "131073" }, yarn4)]));
    expect(r?.message).toBe("yarn");
    expect(r?.data).toMatchObject({ limit: 131_072, original: 32_768, yarn_factor: 4 });
  });
  it("passes the native maximum", () => {
    expect(run(c(kvContextMax), fleet([voices()]))).toEqual([]);
  });
});

describe("kv/long-context-override", () => {
  it("refuses VLLM_ALLOW_LONG_MAX_MODEL_LEN=1", () => {
    const [r] = run(c(kvLongContextOverride), fleet([voices({ VLLM_ALLOW_LONG_MAX_MODEL_LEN: "1" })]));
    expect(r).toMatchObject({ service: "voices", line: 7 });
  });
  it("passes without it (or =0)", () => {
    expect(run(c(kvLongContextOverride), fleet([voices({ VLLM_ALLOW_LONG_MAX_MODEL_LEN: "0" })]))).toEqual([]);
  });
});

describe("kv/yarn", () => {
  it("warns when static YaRN is on", () => {
    const [r] = run(c(kvYarn), fleet([voices({ MAX_MODEL_LEN: "131072" }, yarn4)]));
    expect(r?.message).toBe("on");
    expect(r?.severity).toBeUndefined();
    expect(r?.data).toMatchObject({ yarn_factor: 4 });
  });
  it("is an error where the seat says yarn: forbid", () => {
    const policy = policyOf({ kv: { seats: { voices: { yarn: "forbid", by: "Prime" } } } });
    const [r] = run(c(kvYarn), fleet([voices({}, yarn4)], [], policy), policy);
    expect(r).toMatchObject({ message: "forbidden", severity: "error" });
  });
  it("passes without YaRN", () => {
    expect(run(c(kvYarn), fleet([voices({}, { "--hf-overrides": '{"rope_scaling":{"rope_type":"linear","factor":2}}' })]))).toEqual([]);
  });
});

describe("gen/output-cap", () => {
  it("warns about a seat without a default output cap", () => {
    expect(run(c(genOutputCap), fleet([voices()])).map((r) => [r.message, r.severity])).toEqual([["missing", undefined]]);
  });
  it("refuses a cap above max_model_len", () => {
    const [r] = run(c(genOutputCap), fleet([voices({}, { "--override-generation-config": '{"max_new_tokens":65536}' })]));
    expect(r).toMatchObject({ message: "above", severity: "error" });
    expect(r?.data).toMatchObject({ cap: 65_536, max_model_len: 40_960 });
  });
  it("passes a cap within the context", () => {
    expect(run(c(genOutputCap), fleet([voices({}, CAP)]))).toEqual([]);
  });
});

describe("engine/unknown-model", () => {
  it("refuses a model the catalog does not know, saying how to add it", () => {
    const [r] = run(c(engineUnknownModel), fleet([seat("x", { MODEL: "nobody/unknown-1b" })]));
    expect(r?.text).toContain("add it under models: in kvgate.yaml");
    expect(r).toMatchObject({ line: 4 });
  });
  it("refuses a seat with no model at all", () => {
    expect(run(c(engineUnknownModel), fleet([seat("x", {})])).map((r) => r.message)).toEqual(["none"]);
  });
  it("passes a known model, a kvgate.yaml model, and an unknown one with KV_BYTES_PER_TOKEN", () => {
    const policy = policyOf({ models: { "nobody/unknown-1b": { layers: 2, kv_heads: 2, head_dim: 64, max_context: 4096, weights: "1GiB" } } });
    expect(run(c(engineUnknownModel), fleet([voices()]))).toEqual([]);
    expect(run(c(engineUnknownModel), fleet([seat("x", { MODEL: "nobody/unknown-1b" })], [], policy), policy)).toEqual([]);
    expect(run(c(engineUnknownModel), fleet([seat("x", { MODEL: "nobody/unknown-1b", KV_BYTES_PER_TOKEN: "1000" })]))).toEqual([]);
  });
});

describe("gpu/fits", () => {
  it("refuses a card whose footprints exceed total − reserve", () => {
    // 3 × (15.3 + 7.5 + 2) GiB + 22 GiB tenant = 96.4 GiB > 95 GiB
    const seats = ["a", "b", "c"].map((n) => seat(n, { MODEL: "Qwen/Qwen3-8B", MAX_MODEL_LEN: "40960", KV_CACHE_MEMORY_BYTES: "8053063680" }));
    const [r, ...rest] = run(c(gpuFits), fleet(seats, [tenant("t", 0, 22 * GiB)]));
    expect(rest).toEqual([]);
    const used = 3 * (Math.round(15.3 * GiB) + 7.5 * GiB + 2 * GiB) + 22 * GiB;
    expect(r?.data).toMatchObject({ host: "fv-ml1", gpu: 0, total_bytes: 96 * GiB, used_bytes: used, spare_bytes: 95 * GiB - used });
    expect(r?.text).toMatch(/^fv-ml1 gpu 0: footprints 96.4 GiB > 95 GiB/);
  });
  it("passes a card with room, and leaves radiance cards to section 6", () => {
    expect(run(c(gpuFits), fleet([voices()], [tenant("t", 0, 22 * GiB)]))).toEqual([]);
    const big = seat("r", { ENGINE: "radiance" });
    const seats = ["a", "b", "c", "d"].map((n) => seat(n, { MODEL: "Qwen/Qwen3-8B", MAX_MODEL_LEN: "40960", KV_CACHE_MEMORY_BYTES: "8053063680" }));
    expect(run(c(gpuFits), fleet([...seats, big]))).toEqual([]);
  });
});
