// The example fleet's radiance endpoint (examples/fleet/scripts/frank-archon.*) passes every
// radiance, ttm and knob rule, read through the real env parser and the real ledger facts parser.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseEnv } from "../../src/parse/env.js";
import { readSettings } from "../../src/model/settings.js";
import { ledgerEntryOf } from "../../src/parse/ledger-facts.js";
import { explainRadiance } from "../../src/explain/radiance.js";
import { CHECKS } from "../../src/checks/registry.js";
import { runCase } from "../helpers/rule-tester.js";
import type { Service } from "../../src/model/types.js";
import { pack, policyOf, radianceCase, state } from "./fixtures.js";

const AREA = CHECKS.filter((c) => /^(radiance|ttm|knob)\//.test(c.id));

const root = join(import.meta.dirname, "..", "..", "examples", "fleet");
const read = (p: string) => readFileSync(join(root, p), "utf8");

function exampleService(): Service {
  const file = "scripts/frank-archon.env";
  const env = parseEnv(read(file), file);
  expect(env.problems).toEqual([]);
  const get = (k: string) => env.entries.get(k)?.value;
  const s: Service = {
    name: "frank-archon",
    file,
    engine: get("ENGINE") ?? null,
    host: get("HOST") ?? null,
    gpus: (get("GPU") ?? "").split(",").map(Number),
    model: get("MODEL") ?? null,
    tp: Number(get("TP") ?? 1),
    settings: {},
    env,
    origins: {},
    invalid: [],
    conflicts: [],
  };
  readSettings(env, pack.engines.engines.radiance!, s);
  expect(s.invalid).toEqual([]);
  return s;
}

const policy = policyOf({ ttm: { guards: ["test/ttm-ledger.bats"] } });
const ledger = () => ledgerEntryOf(read("scripts/frank-archon.ledger.yaml"), "scripts/frank-archon.ledger.yaml");

describe("examples/fleet frank-archon", () => {
  it("has a valid ledger facts file", () => {
    expect(ledger().ok).toBe(true);
  });

  it("passes every radiance, ttm and knob rule (only the funding notice under --all)", async () => {
    const after = state([exampleService()], { "frank-archon": ledger() });
    const all = await runCase(radianceCase("--all", { before: null, after, policy }), AREA);
    expect(all.map((f) => f.rule)).toEqual(["radiance/funding"]);
    expect(all[0]?.data).toMatchObject({ tokens: 179408, demand_tokens: 196608 });
    const unchanged = await runCase(radianceCase("unchanged", { before: after, after, policy }), AREA);
    expect(unchanged).toEqual([]);
  });

  it("explains the funding table and the TTM ledger (kvgate explain frank-archon)", () => {
    const service = exampleService();
    const x = explainRadiance({ service, ledger: ledger() }, null, policy);
    expect(x.problems).toEqual([]);
    expect(x.funding).toMatchObject({ tokens: 179408, demand_tokens: 196608, budget_card: 0 });
    expect((x.funding?.cards as unknown[]).length).toBe(2);
    expect(x.ttm).toMatchObject({ ledger_mib: 97791.68, ttm_min_mib: 97792, ttm_target_mib: 98816, required_mib: 97792 });
    expect(x.text).toContain("card 0 (budget) total");
    expect(x.text).toContain("TTM pin ledger");
  });
});
