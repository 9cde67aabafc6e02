import { describe, expect, it } from "vitest";
import { ledgerReader } from "../../src/radiance/reader.js";
import { factsYaml, frank, policyOf, pack, state } from "./fixtures.js";
import type { DecodedFile } from "../../src/engine/fleet.js";

describe("ledgerReader (FleetState.ledgers)", () => {
  it("stores each service's parsed facts file with its path, and problems for a bad one", () => {
    const fleet = state([frank(), { ...frank(), name: "other", file: "scripts/other.env" }, { ...frank(), name: "none", file: "scripts/none.env" }]);
    const files = new Map<string, DecodedFile>([
      ["scripts/frank-archon.ledger.yaml", { text: factsYaml(), problem: null }],
      ["scripts/other.ledger.yaml", { text: null, problem: "the file is not valid UTF-8; save it as UTF-8" }],
    ]);
    ledgerReader.enrich?.(fleet, files, policyOf(), pack);
    expect(Object.keys(fleet.ledgers).sort()).toEqual(["frank-archon", "other"]);
    expect(fleet.ledgers["frank-archon"]).toMatchObject({ ok: true, file: "scripts/frank-archon.ledger.yaml", facts: { plane_mib: 45700 } });
    expect(fleet.ledgers.other).toMatchObject({ ok: false, file: "scripts/other.ledger.yaml", problems: [{ line: 1 }] });
  });
});
