import { describe, expect, it } from "vitest";
import { parseLedgerFacts, ledgerEntryOf, ledgerPathOf, formatLedgerProblem } from "../../src/parse/ledger-facts.js";
import { factsYaml } from "./fixtures.js";

const FILE = "scripts/frank-archon.ledger.yaml";

function problems(text: string) {
  const r = parseLedgerFacts(text, FILE);
  if (r.ok) throw new Error("expected problems");
  return r.problems;
}

describe("parseLedgerFacts", () => {
  it("reads the contract's facts file, file_tier_staging_mib defaulting to 0", () => {
    const text = factsYaml().replace(/file_tier_staging_mib.*\n/, "");
    const r = parseLedgerFacts(text, FILE);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.facts.cards).toHaveLength(2);
    expect(r.facts.cards[0]).toMatchObject({ index: 0, card_total_mib: 26624, static_weights_mib: 9800 });
    expect(r.facts.file_tier_staging_mib).toBe(0);
    expect(r.facts.kv_bytes_per_token).toBe(73728);
  });

  it.each([
    [
      "a missing top-level field",
      factsYaml().replace("unit_max_mib: 700\n", ""),
      2,
      "unit_max_mib",
      /unit_max_mib is missing \(MiB: the largest expert unit\): add it/,
    ],
    [
      "a missing card field, at the card's line",
      factsYaml().replace(
        "drift_mib: 64, arena_mib: 987,\n      step_staging_mib: 256, hw_queues_mib: 96, prefetch_mib: 128, static_weights_mib: 9800 }\n  - { index: 1",
        "arena_mib: 987,\n      step_staging_mib: 256, hw_queues_mib: 96, prefetch_mib: 128, static_weights_mib: 9800 }\n  - { index: 1",
      ),
      3,
      "cards[0].drift_mib",
      /cards\[0\]\.drift_mib is missing/,
    ],
    [
      "a word where a number goes",
      factsYaml().replace("plane_mib: 45700", "plane_mib: lots"),
      7,
      "plane_mib",
      /plane_mib must be a number \(MiB: the expert plane\), got "lots"/,
    ],
    ["a negative MiB", factsYaml().replace("spare_mib: 512", "spare_mib: -1"), 8, "spare_mib", /spare_mib must be 0 or more/],
    [
      "a fraction where a whole number goes",
      factsYaml().replace("block_size: 16", "block_size: 16.5"),
      11,
      "block_size",
      /block_size must be a whole number/,
    ],
    ["an unknown key (a typo)", factsYaml().replace("plane_mib:", "plane_mb: 1\nplane_mib:"), 7, "(top level)", /unknown key "plane_mb"/],
    ["no cards", factsYaml().replace(/cards:[\s\S]*?plane_mib/, "cards: []\nplane_mib"), 2, "cards", /cards is empty/],
    ["a card listed twice", factsYaml().replace("{ index: 1,", "{ index: 0,"), 5, "cards[1].index", /card index 0 is listed twice/],
    ["YAML that does not parse", "cards: [\n", 2, "", /not valid YAML/],
    [
      "an empty file",
      "",
      1,
      "",
      /the ledger facts file is empty: write cards, plane_mib, spare_mib, unit_max_mib, kv_bytes_per_token, block_size/,
    ],
  ])("reports %s with its line", (_name, text, line, path, message) => {
    const ps = problems(text);
    const p = ps.find((x) => x.path === path) ?? ps[0];
    expect(p?.path).toBe(path);
    expect(p?.line).toBe(line);
    expect(p?.message).toMatch(message);
  });

  it("reports every problem at once", () => {
    const text = factsYaml().replace("plane_mib: 45700\n", "").replace("block_size: 16", "block_size: x");
    expect(problems(text).map((p) => p.path)).toEqual(["plane_mib", "block_size"]);
  });

  it("stores the file with the result and formats file:line", () => {
    const e = ledgerEntryOf("plane_mib: 1\n", FILE);
    expect(e.file).toBe(FILE);
    expect(e.ok).toBe(false);
    if (!e.ok) expect(formatLedgerProblem(e.file, e.problems[0]!)).toMatch(/^scripts\/frank-archon\.ledger\.yaml:1: /);
    expect(ledgerPathOf("scripts/{service}.ledger.yaml", "frank-archon")).toBe(FILE);
  });
});
