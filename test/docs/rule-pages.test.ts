// docs/rules/ holds one page per rule id, each exactly what the rule and its table make now
// (./rule-pages.ts; regenerate with `npm run docs:rules`), and nothing else; every finding links there
// (`kvgate rules` through the built CLI: rule-pages.e2e.test.ts).
import { describe, expect, test } from "vitest";
import { readFileSync, readdirSync } from "node:fs";
import { RULES, RULE_MODULES_BY_ID } from "../../src/checks/registry.js";
import { DOCS_URL, ruleDocFile, ruleDocUrl } from "../../src/report/rules-doc.js";
import { rulePages } from "./rule-pages.js";

const pages = await rulePages();
const onDisk = readdirSync("docs/rules").sort();

describe("docs/rules/", () => {
  test("has a page for every rule id, and no page for an id kvgate does not have", () => {
    expect(onDisk).toEqual([...pages.keys()].sort());
    for (const r of RULES) expect(onDisk).toContain(ruleDocFile(r.id));
  });
  test.each([...pages.keys()].sort())("%s is what the rule and its table make now (npm run docs:rules)", (file) => {
    expect(readFileSync(`docs/rules/${file}`, "utf8")).toBe(pages.get(file));
  });
  test.each(RULE_MODULES_BY_ID.map((r) => r.id))(
    "%s: its page says why, what is reported and what passes, the fix, and links the reference",
    (id) => {
      const page = pages.get(ruleDocFile(id)) ?? "";
      for (const section of ["## Why", "## Reported", "## The fix", "## Passes"]) expect(page, section).toContain(`\n${section}\n`);
      expect(page).toMatch(/reference: \[docs\/[a-z0-9-]+\.md#[a-z0-9-]+\]/);
    },
  );
  test("no rule is left as npm run new:rule scaffolded it (a TODO in its description or its why)", () => {
    for (const r of RULE_MODULES_BY_ID) {
      expect(r.description, r.id).not.toMatch(/\bTODO\b/);
      expect(readFileSync(`src/checks/${ruleDocFile(r.id).replace(/\.md$/, ".ts")}`, "utf8").split("\n")[0], r.id).not.toMatch(/\bTODO\b/);
    }
  });
  test("no page holds a secret value: each example's value is shown as kvgate shows it", async () => {
    const { createMasker } = await import("../../src/secrets/mask.js");
    const { defaultPolicy, pack } = await import("../helpers/rule-tester.js");
    const masker = createMasker(pack.detectors(), defaultPolicy());
    for (const [file, text] of pages) expect(masker.text(text), file).toBe(text);
  });
});

describe("every finding links to its page", () => {
  test("the pages are published where package.json's repository is", () => {
    const pkg = JSON.parse(readFileSync("package.json", "utf8"));
    const repo = String(pkg.repository?.url ?? "")
      .replace(/^git\+/, "")
      .replace(/\.git$/, "");
    expect(DOCS_URL).toBe(`${repo}/blob/main/docs`);
    expect(ruleDocUrl("kv/covers-context")).toBe(`${repo}/blob/main/docs/rules/kv-covers-context.md`);
  });
});
