import { describe, expect, it } from "vitest";
import { ttmLedgerOf } from "../../src/radiance/ttm.js";
import { renderTtm } from "../../src/explain/radiance-tables.js";
import { frank, policyOf } from "./fixtures.js";

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
    expect(
      Math.round((ledger({ MAX_SEQS: "9", CHECKPOINT_RETAIN: "0" }).ledger_mib - ledger({ CHECKPOINT_RETAIN: "0" }).ledger_mib) * 100) /
        100,
    ).toBe(111.98);
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
