// What the engine does around the checks: a change answers for what it introduces (the baseline), and
// waiver trailers set statuses. Each rule's own table is in test/rules/tables/.
import { describe, expect, test } from "vitest";
import { runMemory, openRules } from "../helpers/memory.js";

const only = (rule: string) => (f: { rule: string }) => f.rule === rule;

describe("the engine", () => {
  test("a change is answerable for what it introduces: a finding the before state had is not reported", async () => {
    const bad = "A=1\nnot a line\n";
    const f = await runMemory({ before: { "scripts/a.env": bad }, after: { "scripts/a.env": bad + "B=2\n" } });
    expect(f.filter(only("env/parse"))).toEqual([]);
    const g = await runMemory({ before: { "scripts/a.env": "A=1\n" }, after: { "scripts/a.env": bad } });
    expect(openRules(g)).toEqual([["env/parse", 2]]);
  });
  test("a Kvgate-Waive trailer waives that rule, with the reason", async () => {
    const f = await runMemory({
      before: {},
      after: { "scripts/a.env": "A=1\nA=2\n" },
      trailers: [{ key: "Kvgate-Waive", value: "env/duplicate-key cleaning up next week" }],
    });
    const d = f.find(only("env/duplicate-key"));
    expect(d?.status).toBe("waived");
    expect(d?.reason).toMatch(/cleaning up next week/);
  });
  test("a waiver naming an unknown rule is the only open finding of a clean change", async () => {
    const f = await runMemory({
      before: {},
      after: { "scripts/a.env": "A=1\n" },
      trailers: [{ key: "Kvgate-Waive", value: "kv/covers-contxt typo" }],
    });
    expect(openRules(f)).toEqual([["waiver/unknown-rule", null]]);
  });
});
