// The README documents every rule the registry has, and nothing else; the SARIF helpUri anchors exist.
import { describe, expect, test } from "vitest";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { RULES, CHECKS } from "../../src/checks/registry.js";
import { rulesMarkdown, ruleAnchor } from "../../src/report/rules-doc.js";

const readme = readFileSync("README.md", "utf8");

describe("README", () => {
  test("the rule list is the registry's (regenerate: npm run docs:rules)", () => {
    const block = /<!-- rules:start -->\n([\s\S]*?)\n<!-- rules:end -->/.exec(readme)?.[1];
    expect(block).toBe(rulesMarkdown());
  });
  test.each(RULES.map((r) => r.id))("%s has an anchor", (id) => {
    expect(readme).toContain(`<a id="${ruleAnchor(id)}"></a>`);
  });
  test("every check is registered once, in id order, with a description", () => {
    const ids = CHECKS.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    for (const c of CHECKS) expect(c.description.length).toBeGreaterThan(20);
  });
  test("the quick start's two commands are the ones package.json runs", () => {
    const pkg = JSON.parse(readFileSync("package.json", "utf8"));
    expect(readme).toContain("npm ci && npm run example");
    expect(readme).toContain("npm test ");
    expect(pkg.scripts.example).toMatch(/check --all --repo examples\/fleet/);
    expect(pkg.scripts.test).toBe("vitest run");
  });
});

describe("every rule is exercised by a test", () => {
  // A cheap guard against a rule nobody tests: its id (or, for the secret family, its detector id,
  // which the detector tables use) appears in a test file other than this one.

  const walk = (dir: string): string[] => readdirSync(dir).flatMap((n) => (statSync(`${dir}/${n}`).isDirectory() ? walk(`${dir}/${n}`) : [`${dir}/${n}`]));
  const corpus = walk("test")
    .filter((f) => f.endsWith(".ts") && !f.startsWith("test/docs/"))
    .map((f) => readFileSync(f, "utf8"))
    .join("\n");
  test.each(RULES.map((r) => r.id))("%s", (id) => {
    const needle = id.startsWith("secret/") ? id.slice("secret/".length) : id;
    expect(corpus.includes(needle)).toBe(true);
  });
});
