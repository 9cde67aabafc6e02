// src/checks/index.ts is generated from the files of src/checks/ (scripts/checks-index.mjs, run by
// `npm run bundle`): adding a rule is adding its file, and the committed list must be what the script
// writes.
import { describe, expect, test } from "vitest";
import { execFileSync } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { RULE_MODULES } from "../../src/checks/index.js";

describe("the generated rule list", () => {
  test("src/checks/index.ts is what scripts/checks-index.mjs writes (run npm run bundle)", () => {
    const expected = execFileSync(process.execPath, ["scripts/checks-index.mjs", "--stdout"], { encoding: "utf8" });
    expect(readFileSync("src/checks/index.ts", "utf8")).toBe(expected);
  });

  test("every rule file is listed once, its module named as its file", () => {
    const files = readdirSync("src/checks").filter((f) => f.endsWith(".ts") && !["define.ts", "registry.ts", "index.ts"].includes(f));
    expect(RULE_MODULES.map((r) => `${r.id.replace("/", "-")}.ts`).sort()).toEqual(files.sort());
  });
});
