// plan --raise-contexts over hand-built fleets, the numbers worked by hand. Qwen3-8B: 36 layers × 8 KV
// heads × 128 × 2 B × 2 = 144 KiB/token, 15.3 GiB of weights, 2 GiB overhead; at its 40,960 maximum
// 1.25 × 5.625 GiB → 7.5 GiB. Llama-3.1-8B: 128 KiB/token; at 131,072, 1.25 × 16 GiB = 20 GiB.
import { describe, expect, test } from "vitest";
import { fleet, GiB, pack, policyOf, seat, tenant } from "../kv/fixtures.js";
import { raiseContextsForHost } from "../../src/plan/raise.js";

const two48 = policyOf({
  fleet: {
    hosts: {
      "fv-ml1": {
        gpus: [
          { index: 0, total: "48GiB" },
          { index: 1, total: "48GiB" },
        ],
      },
    },
  },
});
const qwen = (env: Record<string, string> = {}) =>
  seat("a", {
    MODEL: "Qwen/Qwen3-8B",
    MAX_MODEL_LEN: "32768",
    KV_CACHE_MEMORY_BYTES: String(6 * GiB),
    GPU_MEMORY_UTILIZATION: "0.5",
    ...env,
  });
const llama = (policyCards: string[]) => ({
  policy: policyOf({ fleet: { hosts: { "fv-ml1": { gpus: policyCards.map((total, index) => ({ index, total })) } } } }),
  service: seat("llama", {
    MODEL: "meta-llama/Llama-3.1-8B-Instruct",
    GPU_MEMORY_UTILIZATION: "0.9",
    VLLM_VERSION: "0.11.0",
    MAX_MODEL_LEN: "16384",
  }),
});

describe("raiseContextsForHost", () => {
  test("a raise that needs a tenant moved and the seat's utilization lifted", () => {
    // Today gpu 0: a (15.3 + 6 + 2 = 23.3 GiB) + tenant t 24 GiB = 47.3 of 48; gpu 1: tenant u 20 GiB.
    // Raised, a takes 15.3 + 7.5 + 2 = 24.8 GiB, more than its 0.5 × 48 = 24 GiB: utilization
    // ceil(24.8 / 48 × 100) / 100 = 0.52. Beside t it is 48.8 GiB (over); beside u 44.8 GiB (3.2 spare);
    // alone, with t and u on the other card (44 GiB), the worst spare is 4 GiB: move t to gpu 1.
    const state = fleet([qwen()], [tenant("t", 0, 24 * GiB), tenant("u", 1, 20 * GiB)], two48);
    const plan = raiseContextsForHost(state, two48, pack, "fv-ml1");
    expect(plan.raised).toEqual([
      {
        name: "a",
        from_tokens: 32_768,
        to_tokens: 40_960,
        kv_from_bytes: 6 * GiB,
        kv_to_bytes: 7.5 * GiB,
        kv_source: "pinned",
        fixes: [
          { file: "scripts/a.env", line: expect.any(Number), key: "MAX_MODEL_LEN", value: "40960" },
          { file: "scripts/a.env", line: expect.any(Number), key: "KV_CACHE_MEMORY_BYTES", value: String(7.5 * GiB) },
          { file: "scripts/a.env", line: expect.any(Number), key: "GPU_MEMORY_UTILIZATION", value: "0.52" },
        ],
      },
    ]);
    expect(plan.layout.worst_spare_bytes).toBe(4 * GiB);
    expect(plan.layout.moves).toEqual([{ name: "t", kind: "tenant", from: 0, to: 1 }]);
    expect(plan.layout).toMatchObject({ boots: true, optimal: true });
    expect(plan.kept).toEqual([]);
  });

  test("a seat at its maximum, or one whose growth no layout holds, is not raised", () => {
    // Today a (23.3 GiB, asking 0.48 × 48 = 23.04 GiB) shares gpu 0 with u (24 GiB; 48 − 24 − 0.5 =
    // 23.5 GiB free at its boot) and t holds 25 GiB of gpu 1. Raised to 24.8 GiB, a fits beside neither
    // (48.8, 49.8 GiB) and t + u (49 GiB) fit no card: a stays, with the reason.
    const state = fleet([qwen({ GPU_MEMORY_UTILIZATION: "0.48" })], [tenant("u", 0, 24 * GiB), tenant("t", 1, 25 * GiB)], two48);
    const plan = raiseContextsForHost(state, two48, pack, "fv-ml1");
    expect(plan.raised).toEqual([]);
    expect(plan.kept).toEqual([
      { name: "a", max_model_len: 32_768, native_max: 40_960, reason: expect.stringContaining("no layout holds it") },
    ]);
    const atMax = raiseContextsForHost(
      fleet([qwen({ MAX_MODEL_LEN: "40960", KV_CACHE_MEMORY_BYTES: String(7.5 * GiB) })], [], two48),
      two48,
      pack,
      "fv-ml1",
    );
    expect(atMax.raised).toEqual([]);
    expect(atMax.kept).toEqual([]);
  });

  test("an unpinned seat is raised only where the profiler's estimate holds its maximum", () => {
    // 24 GiB: 0.9 × 24 − 15 − 1.35 = 5.25 GiB < 20 GiB: kept, pin it. 48 GiB: 0.9 × 48 − 16.35 = 26.85 GiB ≥ 20 GiB:
    // raised by MAX_MODEL_LEN alone (its footprint, 0.9 × 48 GiB, does not change).
    const small = llama(["24GiB"]);
    const kept = raiseContextsForHost(fleet([small.service], [], small.policy), small.policy, pack, "fv-ml1");
    expect(kept.raised).toEqual([]);
    expect(kept.kept).toEqual([
      { name: "llama", max_model_len: 16_384, native_max: 131_072, reason: expect.stringContaining("no card's profiler estimate holds") },
    ]);
    const big = llama(["48GiB"]);
    const raised = raiseContextsForHost(fleet([big.service], [], big.policy), big.policy, pack, "fv-ml1");
    expect(raised.raised).toHaveLength(1);
    expect(raised.raised[0]).toMatchObject({
      kv_source: "estimated",
      kv_to_bytes: 20 * GiB,
      to_tokens: 131_072,
      fixes: [{ key: "MAX_MODEL_LEN", value: "131072" }],
    });
    expect(raised.raised[0]!.kv_from_bytes / GiB).toBeCloseTo(26.85, 2);
  });

  test("a host no layout of today's settings passes: nothing is raised, and the plan says what to fix first", () => {
    // One 48 GiB card: the unpinned llama must be alone on it (kv/unpinned-shared-card), and a is there too.
    const one = llama(["48GiB"]);
    const plan = raiseContextsForHost(fleet([one.service, qwen()], [], one.policy), one.policy, pack, "fv-ml1");
    expect(plan.raised).toEqual([]);
    expect(plan.layout.boots).toBe(false);
    expect(plan.kept.map((k) => [k.name, k.reason])).toEqual([
      ["a", expect.stringContaining("no layout of today's settings passes")],
      ["llama", expect.stringContaining("no layout of today's settings passes")],
    ]);
  });
});
