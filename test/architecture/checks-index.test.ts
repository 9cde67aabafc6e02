// src/checks/index.ts is generated from the files of src/checks/ (scripts/checks-index.mjs, run by
// `npm run bundle`): adding a rule is adding its file. That the committed list is what the script
// writes: checks-index.e2e.test.ts.
import { expect, test } from "vitest";
import { readdirSync } from "node:fs";
import { RULE_MODULES } from "../../src/checks/index.js";

test("every rule file is listed once, its module named as its file", () => {
  const files = readdirSync("src/checks").filter((f) => f.endsWith(".ts") && !["define.ts", "registry.ts", "index.ts"].includes(f));
  expect(RULE_MODULES.map((r) => `${r.id.replace("/", "-")}.ts`).sort()).toEqual(files.sort());
});
