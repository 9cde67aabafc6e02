import { describe, expect, it } from "vitest";
import { ledgerFacts } from "../../src/load/ledger-facts.js";
import { factsYaml, frank, policyOf, pack, state } from "../radiance/fixtures.js";
import type { DecodedFile } from "../../src/load/decode.js";
import type { Snapshot } from "../../src/git/types.js";

const snapshot: Snapshot = { label: "s", list: async () => [], read: async () => new Map() };

describe("the ledger facts input (FleetState.ledgerFacts)", () => {
  it("stores each service's parsed facts file with its path, and problems for a bad one", () => {
    const fleet = state([
      frank(),
      { ...frank(), name: "other", file: "scripts/other.env" },
      { ...frank(), name: "none", file: "scripts/none.env" },
    ]);
    const files = new Map<string, DecodedFile>([
      ["scripts/frank-archon.ledger.yaml", { text: factsYaml(), problem: null }],
      ["scripts/other.ledger.yaml", { text: null, problem: "the file is not valid UTF-8; save it as UTF-8" }],
    ]);
    ledgerFacts.add(fleet, files, { snapshot, listing: [], policy: policyOf(), pack });
    expect(Object.keys(fleet.ledgerFacts).sort()).toEqual(["frank-archon", "other"]);
    expect(fleet.ledgerFacts["frank-archon"]).toMatchObject({
      ok: true,
      file: "scripts/frank-archon.ledger.yaml",
      facts: { plane_mib: 45700 },
    });
    expect(fleet.ledgerFacts.other).toMatchObject({ ok: false, file: "scripts/other.ledger.yaml", problems: [{ line: 1 }] });
  });
});
