import { describe, expect, it } from "vitest";
import { explainRadiance, explainRadianceService } from "../../src/explain/radiance.js";
import { factsYaml, frank, frankState, ledgerOf, policyOf } from "./fixtures.js";

const side = (over: Record<string, string | undefined> = {}, ledger = ledgerOf("frank-archon")) => ({ service: frank(over), ledger });

describe("explainRadiance (kvgate explain <endpoint>)", () => {
  it("gives the ttm and funding objects of contract section 10, before and after", () => {
    const x = explainRadiance(side({ GPU_HEADROOM_MIB: "48" }), side(), policyOf());
    expect(x.problems).toEqual([]);
    expect(x.ttm).toMatchObject({
      ledger_mib: 97791.68,
      ttm_min_mib: 97792,
      ttm_target_mib: 98816,
      terms: { pool_mib: 89856, slots: 16, checkpoint_store_mib: 1791.68 },
    });
    expect(x.funding).toMatchObject({ tokens: 180096, demand_tokens: 196608, budget_card: 0, before: { tokens: 179408 } });
    const cards = x.funding?.cards as {
      index: number;
      capacity_mib: number;
      elastic_mib: number;
      expert_floor_mib: number;
      kv_bytes: number;
      tokens: number;
    }[];
    expect(cards.map((c) => [c.index, c.capacity_mib, c.elastic_mib, c.expert_floor_mib, c.tokens])).toEqual([
      [0, 24635, 14835, 2172, 180096],
      [1, 25339, 15539, 2172, 190096],
    ]);
    expect(x.text).toMatch(/funded\s+91\.3 %\s+91\.6 %/);
    expect(x.text).toMatch(/ledger\s+97,791\.68\s+97,791\.68/);
  });

  it("says what is missing instead of a number", () => {
    const none = explainRadiance({ service: frank(), ledger: undefined }, null, policyOf());
    expect(none.funding).toBeNull();
    expect(none.ttm).not.toBeNull();
    expect(none.problems).toEqual([
      "no ledger facts file scripts/frank-archon.ledger.yaml: write it from the last boot ledger to see the funding (README#rule-radiance-ledger-facts)",
    ]);
    const bad = explainRadiance(side({}, ledgerOf("frank-archon", factsYaml().replace("block_size: 16\n", ""))), null, policyOf());
    expect(bad.problems).toEqual(["scripts/frank-archon.ledger.yaml:2: block_size is missing (tokens per paged KV block): add it"]);
    const unset = explainRadiance(side({ MAX_SEQS: undefined }), null, policyOf());
    expect(unset.problems).toHaveLength(2);
    expect(unset.funding).toBeNull();
    expect(unset.ttm).toBeNull();
  });

  it("prints a readable table", () => {
    const x = explainRadiance(side({ HOST_POOL_MIB: "45952" }), side(), policyOf());
    expect(x.text).toMatch(/TTM_TARGET_MIB needed \(floor \+ 1,024 slack\)\s+98,816\s+100,864/);
    expect(x.text).toMatch(/kv \(MiB\)\s+13,319\s+13,824/); // card 1 reaches kv cap
    expect(x.text).toContain("raise HOST_POOL_MIB by 185 MiB (1 step of 1,024: +1,024)");
    expect(x.ttm).toMatchObject({ target_required_mib: 100864, before: { target_required_mib: 98816 } });
  });

  it("reads the ledger entries of fleet states (explainRadianceService)", () => {
    const after = frankState({ GPU_HEADROOM_MIB: "48" });
    const x = explainRadianceService(after.services[0]!, after, policyOf(), frankState());
    expect(x.funding).toMatchObject({ tokens: 180096, before: { tokens: 179408 } });
    expect(explainRadianceService(after.services[0]!, after, policyOf()).funding).not.toHaveProperty("before");
  });
});
