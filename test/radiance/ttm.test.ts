import { describe, expect, it } from "vitest";
import { ttmLedgerOf } from "../../src/radiance/ttm.js";
import { renderTtm } from "../../src/radiance/render.js";
import { ttmLedger } from "../../src/checks/ttm-ledger.js";
import { ttmTarget } from "../../src/checks/ttm-target.js";
import { ttmCoChange } from "../../src/checks/ttm-co-change.js";
import { ctxOf, frank, frankState, policyOf, run } from "./fixtures.js";
import type { Check, Messages } from "../../src/checks/define.js";

const ledger = (over: Record<string, string | undefined> = {}) => {
  const r = ttmLedgerOf(frank(over), policyOf());
  if (!r.ok) throw new Error(r.missing.join());
  return r.ledger;
};

describe("the TTM pin ledger (contract section 7)", () => {
  it("gives the contract's example: 97,791.68 MiB → TTM_MIN_MIB ≥ 97,792", () => {
    const l = ledger();
    expect(l.pool_mib).toBe(89856);
    expect(l.prefix_cache_mib).toBe(4096);
    expect(l.ple_table_mib).toBe(0);
    expect(l.statics_mib).toBe(2048);
    expect(l.slots).toBe(16);
    expect(l.checkpoint_store_mib).toBe(1791.68);
    expect(l.ledger_mib).toBe(97791.68);
    expect(l.required_mib).toBe(97792);
  });

  it.each([
    // settings, ledger MiB
    [{ CHECKPOINT_SLOTS: "24" }, 89856 + 4096 + 2048 + 24 * 111.98],
    [{ CHECKPOINT_SLOTS: undefined }, 97791.68], // unset counts as auto
    [{ CHECKPOINT_RETAIN: undefined }, 89856 + 4096 + 2048 + 8 * 111.98],
    [{ STATICS_MIB: "3072" }, 97791.68 + 1024],
    [{ PLE_TABLE_MIB: "512", PREFIX_CACHE_MIB: undefined }, 97791.68 + 512 - 4096],
    [{ TP: "1" }, 97791.68 - 44928],
  ])("with %o the ledger is %d MiB", (over, mib) => {
    expect(ledger(over).ledger_mib).toBeCloseTo(mib, 6);
  });

  it("a slot bump raises the ledger twice with auto slots and retain 1 (state + store)", () => {
    const before = ledger();
    const after = ledger({ MAX_SEQS: "9" });
    expect(after.slots - before.slots).toBe(2);
    expect(Math.round((after.ledger_mib - before.ledger_mib) * 100) / 100).toBe(223.96);
    expect(after.required_mib).toBe(98016);
    // once with retain 0, not at all with a fixed slot count
    expect(Math.round((ledger({ MAX_SEQS: "9", CHECKPOINT_RETAIN: "0" }).ledger_mib - ledger({ CHECKPOINT_RETAIN: "0" }).ledger_mib) * 100) / 100).toBe(111.98);
    expect(ledger({ MAX_SEQS: "9", CHECKPOINT_SLOTS: "16" }).ledger_mib).toBe(97791.68);
  });

  it("needs MAX_SEQS for auto slots", () => {
    expect(ttmLedgerOf(frank({ MAX_SEQS: undefined }), policyOf())).toEqual({ ok: false, missing: ["MAX_SEQS"] });
  });

  it("renders each term and the floor it demands", () => {
    const text = renderTtm(ledger(), ledger({ HOST_POOL_MIB: "45952" }));
    expect(text).toMatch(/TP × HOST_POOL_MIB\s+2 × 44,928\s+2 × 45,952/);
    expect(text).toMatch(/checkpoint slots\s+auto: 8 × \(1 \+ 1\) = 16/);
    expect(text).toMatch(/ledger\s+97,791\.68\s+99,839\.68/);
    expect(text).toMatch(/TTM_MIN_MIB needed \(ceil\)\s+97,792\s+99,840/);
  });
});

const ids = <M extends Messages>(check: Check<M>, ctx: ReturnType<typeof ctxOf>) => run(check, ctx);

describe("ttm/ledger", () => {
  it.each([
    ["TTM_MIN_MIB 97,792 covers 97,791.68", {}, null],
    ["TTM_MIN_MIB 97,791 does not", { TTM_MIN_MIB: "97791" }, "below"],
    ["TTM_MIN_MIB unset with a host pool", { TTM_MIN_MIB: undefined }, "unset"],
    ["TTM_MIN_MIB unset without a host pool", { TTM_MIN_MIB: undefined, HOST_POOL_MIB: undefined }, null],
  ])("%s", (_name, over, message) => {
    const r = ids(ttmLedger, ctxOf({ before: null, after: frankState(over) }));
    expect(r.map((x) => x.message)).toEqual(message ? [message] : []);
  });

  it("names the numbers and the fix", () => {
    const [r] = ids(ttmLedger, ctxOf({ before: null, after: frankState({ HOST_POOL_MIB: "45952" }) }));
    expect(r?.data).toMatchObject({ ledger_mib: 99839.68, required_mib: 99840, ttm_min_mib: 97792, ttm_target_mib: 98816 });
    expect(r?.line).toBe(14);
    expect(r?.text).toBe(
      "TTM_MIN_MIB 97,792 is below the pin ledger 99,839.68 MiB (2 × 45,952 pool + 0 PLE + 4,096 prefix + 2,048 statics + 16 slots (auto: 8 × (1 + 1)) × 111.98): set TTM_MIN_MIB to 99,840 or more (and TTM_TARGET_MIB to 100,864 or more)",
    );
  });
});

describe("ttm/target", () => {
  it.each([
    ["98,816 = 97,792 + 1,024 slack", "98816", false],
    ["98,815", "98815", true],
  ])("TTM_TARGET_MIB %s", (_n, target, fails) => {
    const r = ids(ttmTarget, ctxOf({ before: null, after: frankState({ TTM_TARGET_MIB: target }) }));
    expect(r.length).toBe(fails ? 1 : 0);
    if (fails) {
      expect(r[0]?.data).toMatchObject({ ttm_min_mib: 97792, ttm_target_mib: 98815, target_required_mib: 98816, ledger_mib: 97791.68 });
      expect(r[0]?.text).toContain("set TTM_TARGET_MIB to 98,816 or more");
    }
  });
});

describe("ttm/co-change", () => {
  const guards = policyOf({ ttm: { guards: ["test/ttm-ledger.bats"] } });
  const raised = { HOST_POOL_MIB: "45952" };
  const fixed = { HOST_POOL_MIB: "45952", TTM_MIN_MIB: "99840", TTM_TARGET_MIB: "100864" };
  it.each([
    ["the pool rises, TTM_MIN_MIB does not", raised, ["scripts/frank-archon.env"], { ttm_min_changed: false, missing_guards: [] }, false],
    ["the pool and TTM_MIN_MIB rise together", fixed, ["scripts/frank-archon.env"], null, false],
    ["the guard is not touched", fixed, ["scripts/frank-archon.env"], { ttm_min_changed: true, missing_guards: ["test/ttm-ledger.bats"] }, true],
    ["TTM_MIN_MIB and the guard move with the pool", fixed, ["scripts/frank-archon.env", "test/ttm-ledger.bats"], null, true],
    ["a slot bump (MAX_SEQS 8 → 9) without TTM_MIN_MIB", { MAX_SEQS: "9" }, ["scripts/frank-archon.env"], { ledger_before_mib: 97791.68, ledger_mib: 98015.64, ttm_min_changed: false }, false],
    ["nothing the ledger reads changes", { GPU_HEADROOM_MIB: "48" }, ["scripts/frank-archon.env"], null, false],
  ])("%s", (_name, over, files, data, withGuards) => {
    const r = ids(ttmCoChange, ctxOf({ before: frankState(), after: frankState(over), files, policy: withGuards ? guards : policyOf() }));
    expect(r.length).toBe(data ? 1 : 0);
    if (data) expect(r[0]?.data).toMatchObject(data);
  });

  it("says what to change, with the numbers", () => {
    const [r] = ids(ttmCoChange, ctxOf({ before: frankState(), after: frankState(raised), policy: guards }));
    expect(r?.text).toBe(
      "the pin ledger moves 97,791.68 → 99,839.68 MiB by HOST_POOL_MIB 44,928 → 45,952: in the same commit, change TTM_MIN_MIB (97,792; ceil(ledger) is 99,840) and update test/ttm-ledger.bats",
    );
  });

  it("does nothing under --all or for a new service", () => {
    expect(ids(ttmCoChange, ctxOf({ before: null, after: frankState(raised) }))).toEqual([]);
    expect(ids(ttmCoChange, ctxOf({ before: { ...frankState(), services: [] }, after: frankState(raised) }))).toEqual([]);
  });
});
