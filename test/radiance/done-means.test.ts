// Issue 4's "Done means", at the level of this area's checks (the end-to-end runs in temp repos are
// in test/e2e/radiance.e2e.test.ts): every radiance, ttm and knob check over one deploy unit, through the
// engine and its finding pipeline.
import { describe, expect, it } from "vitest";
import { CHECKS } from "../../src/checks/registry.js";
import { runCase, type Actual, type Case } from "../helpers/rule-tester.js";
import { frankState, policyOf, radianceCase } from "./fixtures.js";

const policy = policyOf({ ttm: { guards: ["test/ttm-ledger.bats"] } });
const AREA = CHECKS.filter((c) => /^(radiance|ttm|knob)\//.test(c.id));

const findings = (c: Case): Promise<Actual[]> => runCase(c, AREA);
const failing = (f: Actual[]) => f.filter((x) => x.severity === "error" && x.status === "open").map((x) => x.rule);
const unit = (before: Record<string, string>, after: Record<string, string>, files = ["scripts/frank-archon.env"]) =>
  findings(radianceCase("unit", { before: frankState(before), after: frankState(after), files, policy }));

describe("issue 4, done means", () => {
  it("GPU_HEADROOM_MIB 96 → 48 alone passes and reports the new funding", async () => {
    const f = await unit({}, { GPU_HEADROOM_MIB: "48" });
    expect(failing(f)).toEqual([]);
    expect(f.map((x) => x.rule)).toEqual(["radiance/funding"]);
    expect(f[0]?.data).toMatchObject({ tokens: 180096, demand_tokens: 196608, before: { tokens: 179408 } });
    expect(f[0]?.message).toContain("funds 180,096 of 196,608 tokens of demand (91.6 %)");
  });

  it("GPU_HEADROOM_MIB 96 → 32 is refused", async () => {
    const f = await unit({}, { GPU_HEADROOM_MIB: "32" });
    expect(failing(f)).toEqual(["radiance/headroom"]);
    expect(f.find((x) => x.rule === "radiance/headroom")?.data).toEqual({
      gpu_headroom_mib: 32,
      headroom_floor_mib: 48,
      key: "GPU_HEADROOM_MIB",
      fix: { file: "scripts/frank-archon.env", line: 6, key: "GPU_HEADROOM_MIB", value: "48" },
    });
  });

  it("GPU_HEADROOM_MIB and HOST_POOL_MIB in one unit is refused by knob/one-per-deploy; as two units, neither is", async () => {
    const both = { GPU_HEADROOM_MIB: "48", HOST_POOL_MIB: "45952", TTM_MIN_MIB: "99840", TTM_TARGET_MIB: "100864" };
    const files = ["scripts/frank-archon.env", "test/ttm-ledger.bats"];
    expect(failing(await unit({}, both, files))).toEqual(["knob/one-per-deploy"]);
    const first = { GPU_HEADROOM_MIB: "48" };
    expect(failing(await unit({}, first, files))).toEqual([]);
    expect(failing(await unit(first, both, files))).toEqual([]);
  });

  it("HOST_POOL_MIB +1,024 without TTM_MIN_MIB fails ttm/co-change and ttm/ledger with the numbers", async () => {
    const f = await unit({}, { HOST_POOL_MIB: "45952" });
    expect(failing(f).sort()).toEqual(["ttm/co-change", "ttm/ledger"]);
    const ledger = f.find((x) => x.rule === "ttm/ledger");
    expect(ledger?.data).toMatchObject({ ledger_mib: 99839.68, required_mib: 99840, ttm_min_mib: 97792, ttm_target_mib: 98816 });
    const co = f.find((x) => x.rule === "ttm/co-change");
    expect(co?.data).toMatchObject({
      ledger_before_mib: 97791.68,
      ledger_mib: 99839.68,
      ttm_min_mib: 97792,
      ttm_min_changed: false,
      missing_guards: ["test/ttm-ledger.bats"],
    });
    // the pool buys cache here (the floor was 2,172 MiB), so no pool-no-effect; funding moves
    expect(f.find((x) => x.rule === "radiance/funding")?.data).toMatchObject({ tokens: 193968, before: { tokens: 179408 } });
    expect(f.some((x) => x.rule === "radiance/pool-no-effect" || x.rule === "radiance/pool-step")).toBe(false);
  });

  it("the same raise with TTM_MIN_MIB, TTM_TARGET_MIB and the guard passes", async () => {
    const f = await unit({}, { HOST_POOL_MIB: "45952", TTM_MIN_MIB: "99840", TTM_TARGET_MIB: "100864" }, [
      "scripts/frank-archon.env",
      "test/ttm-ledger.bats",
    ]);
    expect(failing(f)).toEqual([]);
  });

  it("the contract's ledger example gives 97,791.68 MiB (and passes at TTM_MIN_MIB 97,792, fails at 97,791)", async () => {
    const ok = await findings(radianceCase("all", { before: null, after: frankState(), policy }));
    expect(failing(ok)).toEqual([]);
    const low = await findings(
      radianceCase("all", { before: null, after: frankState({ TTM_MIN_MIB: "97791", TTM_TARGET_MIB: "98815" }), policy }),
    );
    expect(failing(low)).toEqual(["ttm/ledger"]);
    expect(low.find((x) => x.rule === "ttm/ledger")?.data).toMatchObject({ ledger_mib: 97791.68, required_mib: 97792 });
  });

  it("a slot bump (MAX_SEQS 8 → 9, auto slots, retain 1) raises the ledger by two slots", async () => {
    const f = await unit({}, { MAX_SEQS: "9" });
    expect(failing(f).sort()).toEqual(["ttm/co-change", "ttm/ledger"]);
    expect(f.find((x) => x.rule === "ttm/ledger")?.data).toMatchObject({ ledger_mib: 98015.64, required_mib: 98016 });
  });
});
