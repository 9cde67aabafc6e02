import { describe, expect, it } from "vitest";
import { fundingFromInputs, fundingOf, expertFloorMib } from "../../src/radiance/funding.js";
import { renderFunding } from "../../src/explain/radiance-tables.js";
import { factsOf, factsYaml, frank } from "./fixtures.js";

const MiB = 1024 * 1024;
const base = { gpu_headroom_mib: 96, host_pool_mib: 44928, max_seqs: 8, max_model_len: 24576 };

describe("the funding formula (contract section 6)", () => {
  it("computes every term of the contract's card 0 facts", () => {
    const facts = factsOf(factsYaml({ plane_mib: 14000 }));
    const f = fundingFromInputs({ ...base, host_pool_mib: 12000 }, facts);
    const card0 = f.cards[0];
    // 26624 − 410 − 64 − 96 − 987 − 256 − 96 − 128
    expect(card0?.capacity_mib).toBe(24587);
    expect(card0?.elastic_mib).toBe(14787);
    expect(f.host_room_mib).toBe(12000);
    // min(14000 + 512, max(14000 + 2 × 700 − 12000, 0))
    expect(f.expert_floor_mib).toBe(3400);
    expect(f.kv_cap_bytes).toBe(8 * 24576 * 73728);
    expect(card0?.supply_bytes).toBe((14787 - 3400) * MiB);
    // floor(11387 MiB / (73728 × 16)) × 16
    expect(card0?.tokens).toBe(Math.floor((11387 * MiB) / (73728 * 16)) * 16);
    expect(card0?.tokens).toBe(161936);
  });

  it.each([
    // host pool, expert floor: capped at plane + spare, linear, then 0 once the host holds the plane
    [0, 14512],
    [888, 14512],
    [1000, 14400],
    [12000, 3400],
    [15400, 0],
    [44928, 0],
  ])("expert floor at HOST_POOL_MIB %i is %i", (pool, floor) => {
    expect(expertFloorMib(pool, factsOf(factsYaml({ plane_mib: 14000 })))).toBe(floor);
  });

  it("takes the file tier's staging off the host room", () => {
    const f = fundingFromInputs(base, factsOf(factsYaml({ file_tier_staging_mib: 1000 })));
    expect(f.host_room_mib).toBe(43928);
    expect(f.expert_floor_mib).toBe(45700 + 1400 - 43928);
    expect(f.useful_pool_mib).toBe(48100);
  });

  it("makes the smaller card the budget (26,624 vs 27,320 MiB)", () => {
    const f = fundingOf(frank(), factsOf());
    expect(f).not.toBeNull();
    expect(f?.cards.map((c) => c.tokens)).toEqual([179408, 189424]);
    expect(f?.budget_card).toBe(0);
    expect(f?.tokens).toBe(179408);
    expect(f?.demand_tokens).toBe(196608);
    expect(f?.funded).toBeCloseTo(0.9125, 4);
    expect(f?.underfunded).toBe(true);
    expect(f?.expert_floor_mib).toBe(2172);
    expect(f?.useful_pool_mib).toBe(47100);
    expect(f?.pool_still_useful_mib).toBe(2172);
    // card 0 lacks 13,824 − 12,615 = 1,209 MiB of kv cap; the floor has 2,172 to give
    expect(f?.pool_for_full_funding_mib).toBe(1209);
  });

  it("caps kv at kv_cap when demand is small (funded 100 %)", () => {
    const f = fundingFromInputs({ ...base, max_model_len: 8192 }, factsOf());
    expect(f.cards.every((c) => c.kv_bytes === c.kv_cap_bytes && c.limited_by === "demand")).toBe(true);
    expect(f.tokens).toBe(65536);
    expect(f.funded).toBe(1);
    expect(f.underfunded).toBe(false);
    expect(f.pool_for_full_funding_mib).toBe(0);
  });

  it("says the pool alone cannot fund a demand beyond what the floor can give", () => {
    const f = fundingFromInputs({ ...base, max_seqs: 16 }, factsOf());
    expect(f.pool_for_full_funding_mib).toBeNull();
  });

  it("leaves no cache (not a negative one) when the floor exceeds elastic", () => {
    const f = fundingFromInputs({ ...base, host_pool_mib: 0 }, factsOf());
    expect(f.expert_floor_mib).toBe(46212);
    expect(f.cards.map((c) => c.kv_bytes)).toEqual([0, 0]);
    expect(f.tokens).toBe(0);
  });

  it("needs all four settings", () => {
    expect(fundingOf(frank({ MAX_SEQS: undefined }), factsOf())).toBeNull();
  });
});

describe("renderFunding", () => {
  it("prints every term per card before and after, and the levers", () => {
    const facts = factsOf();
    const before = fundingFromInputs(base, facts);
    const after = fundingFromInputs({ ...base, gpu_headroom_mib: 48 }, facts);
    const text = renderFunding(before, after, { pool_step_mib: 1024 });
    for (const term of ["capacity", "elastic", "host room", "expert floor", "kv cap", "kv (MiB)", "tokens", "demand", "funded"])
      expect(text).toContain(term);
    expect(text).toMatch(/capacity\s+24,587\s+24,635/);
    expect(text).toMatch(/card 0 \(budget\)/);
    expect(text).toMatch(/^\s+tokens\s+179,408\s+180,096$/m);
    expect(text).toMatch(/funded\s+91\.3 %\s+91\.6 %/);
    expect(text).toContain("--max-num-seqs / --max-model-len raise demand only");
    expect(text).toContain("2,172 MiB more pool is still useful");
    expect(text).toContain("HOST_POOL_MIB 47,100 = plane 45,700 + 2 × unit_max 700 + file-tier staging 0");
    expect(text).toContain("raise HOST_POOL_MIB by 1,161 MiB (2 steps of 1,024: +2,048)");
  });

  it("says the pool buys nothing once the host holds the plane", () => {
    const f = fundingFromInputs({ ...base, host_pool_mib: 48128 }, factsOf());
    expect(f.pool_still_useful_mib).toBe(0);
    const text = renderFunding(null, f);
    expect(text).toContain("--host-pool-mib buys nothing more");
    expect(text).toMatch(/^\s+now$/m);
  });
});
