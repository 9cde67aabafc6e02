/// <reference types="vite/client" />
// Every rule's table (test/rules/tables/<rule file>.ts) through the real engine and pipeline, and the
// guard that every registered rule is raised by an invalid case of some table.
import { describe, expect, test } from "vitest";
import { RULES, RULE_MODULES_BY_ID } from "../../src/checks/registry.js";
import { isCheck } from "../../src/checks/define.js";
import { assertInvalid, assertValid, findingsOf, idsOf, type RuleTable } from "../helpers/rule-tester.js";

const tables = Object.entries(import.meta.glob<RuleTable>("./tables/*.ts", { eager: true, import: "default" })).map(([path, table]) => ({
  file: path.replace(/^\.\/tables\//, "").replace(/\.ts$/, ""),
  table,
}));

for (const { table } of tables) {
  describe(table.rule.id, () => {
    test.each(table.valid.map((c) => [c.name, c] as const))("valid: %s", async (_name, c) => assertValid(table, c));
    test.each(table.invalid.map((c) => [c.name, c] as const))("invalid: %s", async (_name, c) => assertInvalid(table, c));
  });
}

/** The rule ids some invalid case of some table expects. */
function raisedByTables(list: readonly RuleTable[]): Set<string> {
  const raised = new Set<string>();
  for (const t of list) {
    const own = idsOf(t.rule).length === 1 ? t.rule.id : undefined;
    for (const c of t.invalid) for (const f of c.findings) raised.add(f.rule ?? own ?? t.rule.id);
  }
  return raised;
}

describe("rule ids", () => {
  test("are lowercase words and digits joined by - and /, so the registry's code-point order is the locale's", () => {
    const ids = RULES.map((r) => r.id);
    expect(ids.filter((id) => !/^[a-z0-9]+(?:[-/][a-z0-9]+)*$/.test(id))).toEqual([]);
    expect(ids).toEqual([...ids].sort((a, b) => a.localeCompare(b)));
  });
});

describe("every rule is tested", () => {
  test("each rule module has its table, named as its file (kv/covers-context → kv-covers-context.ts)", () => {
    const byFile = (a: [string, string], b: [string, string]) => a[0].localeCompare(b[0]);
    expect(tables.map((t): [string, string] => [t.file, t.table.rule.id]).sort(byFile)).toEqual(
      RULE_MODULES_BY_ID.map((r): [string, string] => [r.id.replace("/", "-"), r.id]).sort(byFile),
    );
  });

  test("each table has a passing and a failing case", () => {
    expect(tables.filter((t) => t.table.valid.length === 0 || t.table.invalid.length === 0).map((t) => t.file)).toEqual([]);
  });

  // A check that reports only through its family (secret/scan: one rule per detector) raises no
  // finding of its own id; each member of the family must be raised instead.
  const familyHeads = new Set(RULE_MODULES_BY_ID.filter((r) => isCheck(r) && (r.family ?? []).length > 0).map((r) => r.id));
  test.each(RULES.map((r) => r.id).filter((id) => !familyHeads.has(id)))("%s is raised by an invalid case", (id) => {
    expect(raisedByTables(tables.map((t) => t.table)).has(id), `no invalid case of test/rules/tables/ raises ${id}`).toBe(true);
  });
});

// A message a rule can say but no case makes it say is text nobody has read: its data may not be
// what the builder reads, and its advice was never applied. Every message id of every rule module is
// named by a finding some invalid case of its own table raises (the tester records the id a report
// named on each finding: Actual.messageId).
describe("every message is said", () => {
  test("each message id of each rule module is raised by an invalid case of its table", async () => {
    const unsaid: string[] = [];
    for (const { table } of tables) {
      const said = new Set<string>();
      for (const c of table.invalid) for (const f of await findingsOf(table, c)) said.add(f.messageId);
      for (const id of Object.keys(table.rule.messages)) if (!said.has(id)) unsaid.push(`${table.rule.id}: ${id}`);
    }
    expect(unsaid, "message ids no invalid case of test/rules/tables/ raises").toEqual([]);
  });
});
