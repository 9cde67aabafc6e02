import { describe, expect, it } from "vitest";
import { radianceHeadroom } from "../../src/checks/radiance-headroom.js";
import { radiancePoolStep } from "../../src/checks/radiance-pool-step.js";
import { radianceFunding } from "../../src/checks/radiance-funding.js";
import { radiancePoolNoEffect } from "../../src/checks/radiance-pool-no-effect.js";
import { radianceDemandCut } from "../../src/checks/radiance-demand-cut.js";
import { radianceLedgerFacts } from "../../src/checks/radiance-ledger-facts.js";
import { ctxOf, factsYaml, frank, frankState, ledgerOf, state, run } from "./fixtures.js";

const change = (over: Record<string, string | undefined>) => ctxOf({ before: frankState(), after: frankState(over) });

describe("radiance/headroom", () => {
  it.each([
    ["96", 0],
    ["48", 0],
    ["47", 1],
    ["32", 1],
  ])("GPU_HEADROOM_MIB %s → %i finding", (h, n) => {
    const r = run(radianceHeadroom, ctxOf({ before: null, after: frankState({ GPU_HEADROOM_MIB: h }) }));
    expect(r).toHaveLength(n);
    if (n) {
      expect(r[0]?.data).toEqual({ gpu_headroom_mib: Number(h), headroom_floor_mib: 48 });
      expect(r[0]?.line).toBe(6);
      expect(r[0]?.text).toContain("set GPU_HEADROOM_MIB to 48 or more");
    }
  });
});

describe("radiance/pool-step", () => {
  it.each([
    ["45952", null], // +1,024
    ["46976", null], // +2,048
    ["43904", null], // −1,024
    ["45928", { change_mib: 1000, suggested_mib: 45952 }],
    ["44000", { change_mib: -928, suggested_mib: 43904 }],
  ])("HOST_POOL_MIB 44,928 → %s", (pool, data) => {
    const r = run(radiancePoolStep, change({ HOST_POOL_MIB: pool }));
    expect(r).toHaveLength(data ? 1 : 0);
    if (data) expect(r[0]?.data).toMatchObject({ ...data, host_pool_before_mib: 44928, pool_step_mib: 1024 });
  });

  it("does not judge a pool with no before (--all, new service)", () => {
    expect(run(radiancePoolStep, ctxOf({ before: null, after: frankState({ HOST_POOL_MIB: "45928" }) }))).toEqual([]);
  });
});

describe("radiance/funding", () => {
  it("reports the move of a headroom change, before → after", () => {
    const [r, ...rest] = run(radianceFunding, change({ GPU_HEADROOM_MIB: "48" }));
    expect(rest).toEqual([]);
    expect(r?.data).toMatchObject({ tokens: 180096, demand_tokens: 196608, budget_card: 0, before: { tokens: 179408, demand_tokens: 196608 } });
    expect(r?.data.funded).toBeCloseTo(180096 / 196608, 10);
    expect(r?.text).toBe("funds 180,096 of 196,608 tokens of demand (91.6 %); card 0 is the budget; was 179,408 of 196,608 (91.3 %)");
    expect(r?.line).toBe(6);
  });

  it("reports where a new endpoint stands, and stays quiet when nothing moves", () => {
    expect(run(radianceFunding, ctxOf({ before: null, after: frankState() })).map((r) => r.data.tokens)).toEqual([179408]);
    expect(run(radianceFunding, change({ TTM_TARGET_MIB: "99840" }))).toEqual([]);
  });

  it("says which settings it lacks", () => {
    const [r] = run(radianceFunding, ctxOf({ before: null, after: frankState({ MAX_MODEL_LEN: undefined }) }));
    expect(r?.message).toBe("inputs");
    expect(r?.data).toEqual({ missing: ["MAX_MODEL_LEN"] });
  });
});

describe("radiance/pool-no-effect", () => {
  it("warns when the host already holds the whole plane", () => {
    // the floor reaches 0 at 47,100; 48,128 → 49,152 buys nothing
    const ctx = ctxOf({ before: frankState({ HOST_POOL_MIB: "48128" }), after: frankState({ HOST_POOL_MIB: "49152" }) });
    const [r] = run(radiancePoolNoEffect, ctx);
    expect(r?.data).toMatchObject({ reason: "plane-on-host", useful_pool_mib: 47100, expert_floor_mib: 0, host_pool_before_mib: 48128, host_pool_mib: 49152 });
    expect(r?.text).toContain("the host already holds the whole plane (the expert floor is 0 from HOST_POOL_MIB 47,100)");
  });

  it("warns when kv is already at kv_cap", () => {
    const ctx = ctxOf({ before: frankState({ MAX_MODEL_LEN: "8192" }), after: frankState({ MAX_MODEL_LEN: "8192", HOST_POOL_MIB: "45952" }) });
    expect(run(radiancePoolNoEffect, ctx).map((r) => r.data.reason)).toEqual(["demand-met"]);
  });

  it("is quiet when the pool buys cache, even with another knob in the unit", () => {
    expect(run(radiancePoolNoEffect, change({ HOST_POOL_MIB: "45952" }))).toEqual([]);
    expect(run(radiancePoolNoEffect, change({ HOST_POOL_MIB: "45952", GPU_HEADROOM_MIB: "48" }))).toEqual([]);
  });

  it("judges the pool alone: a headroom cut in the same unit cannot hide a useless pool", () => {
    const ctx = ctxOf({ before: frankState({ HOST_POOL_MIB: "48128" }), after: frankState({ HOST_POOL_MIB: "49152", GPU_HEADROOM_MIB: "48" }) });
    expect(run(radiancePoolNoEffect, ctx)).toHaveLength(1);
  });
});

describe("radiance/demand-cut", () => {
  it("warns when an under-funded endpoint cuts demand", () => {
    const [r] = run(radianceDemandCut, change({ MAX_SEQS: "7" }));
    expect(r?.data).toMatchObject({ tokens: 179408, demand_tokens: 196608, cuts: [{ knob: "MAX_SEQS", before: 8, after: 7 }], pool_for_full_funding_mib: 1209 });
    expect(r?.data.funded).toBeCloseTo(0.9125, 4);
    expect(r?.text).toContain("demand is not the lever; keep the demand and raise HOST_POOL_MIB in 1,024-MiB steps");
  });

  it.each([
    ["raising demand", { MAX_SEQS: "9" }],
    ["cutting a fully funded endpoint", { MAX_MODEL_LEN: "4096" }],
  ])("is quiet when %s", (_n, over) => {
    const before = frankState("MAX_MODEL_LEN" in over ? { MAX_MODEL_LEN: "8192" } : {});
    expect(run(radianceDemandCut, ctxOf({ before, after: frankState(over) }))).toEqual([]);
  });
});

describe("radiance/ledger-facts", () => {
  it("reports each problem of a malformed facts file at its line", () => {
    const bad = ledgerOf("frank-archon", factsYaml().replace("plane_mib: 45700", "plane_mib: lots").replace("block_size: 16\n", ""));
    const r = run(radianceLedgerFacts, ctxOf({ before: null, after: state([frank()], { "frank-archon": bad }) }));
    expect(r.map((x) => [x.file, x.line, x.data.path])).toEqual([
      ["scripts/frank-archon.ledger.yaml", 2, "block_size"],
      ["scripts/frank-archon.ledger.yaml", 7, "plane_mib"],
    ]);
    expect(r[1]?.text).toBe('ledger facts: plane_mib must be a number (MiB: the expert plane), got "lots"');
  });

  it("wants a card per GPU of the endpoint", () => {
    const one = ledgerOf("frank-archon", factsYaml().replace(/  - \{ index: 1[\s\S]*?9800 \}\n/, ""));
    const [r] = run(radianceLedgerFacts, ctxOf({ before: null, after: state([frank()], { "frank-archon": one }) }));
    expect(r?.data).toEqual({ cards: 1, expected: 2, from: "GPU=0,1" });
  });

  it("notes a missing facts file when the endpoint is in the change, as a notice", () => {
    const after = state([frank()]);
    const [r] = run(radianceLedgerFacts, ctxOf({ before: after, after }));
    expect(r?.severity).toBe("notice");
    expect(r?.data).toEqual({ file: "scripts/frank-archon.ledger.yaml" });
    expect(run(radianceLedgerFacts, ctxOf({ before: after, after, files: ["README.md"] }))).toEqual([]);
  });

  it("is quiet for a good facts file", () => {
    expect(run(radianceLedgerFacts, ctxOf({ before: null, after: frankState() }))).toEqual([]);
  });
});
