// What counts as moving a knob (the rule tables of knob/* are in test/rules/tables/).
import { describe, expect, it } from "vitest";
import { knobChanges } from "../../src/radiance/knobs.js";
import { FRANK, frank, ledgerOf, pack, policyOf, service, state } from "./fixtures.js";

describe("knobChanges", () => {
  it("does not count a value moved from an env key into a flag with the same value", () => {
    const { HOST_POOL_MIB: _moved, ...rest } = FRANK;
    const after = state(
      [service("frank-archon", { ...rest, SERVE_ARGS: "--host-pool-mib 44928" }, { flags: { "--host-pool-mib": "44928" } })],
      { "frank-archon": ledgerOf("frank-archon") },
    );
    const a = after.services[0]!;
    expect(a.settings.host_pool_mib?.origin.source).toBe("flag");
    expect(knobChanges(frank(), a, policyOf(), pack)).toEqual([]);
  });
});
