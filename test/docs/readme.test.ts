// The README documents every rule the registry has, and nothing else, each row keeping the anchor older
// SARIF logs link to (helpUri now names the rule's page: test/docs/rule-pages.test.ts). The reference
// moved to docs/ and the contributor's notes to CONTRIBUTING.md; the README links both.
// (That every rule is raised by a test is test/rules/rules.test.ts's guard.)
import { describe, expect, test } from "vitest";
import { readFileSync } from "node:fs";
import { RULES, CHECKS } from "../../src/checks/registry.js";
import { rulesMarkdown, ruleAnchor } from "../../src/report/rules-doc.js";
import { USAGE } from "../../src/cli/usage.js";
import { FORMATS, REPORTERS } from "../../src/report/reporters.js";

const readme = readFileSync("README.md", "utf8");

describe("README", () => {
  test("the rule list is the registry's (regenerate: npm run docs:rules)", () => {
    const block = /<!-- rules:start -->\n([\s\S]*?)\n<!-- rules:end -->/.exec(readme)?.[1];
    expect(block).toBe(rulesMarkdown());
  });
  test("the CLI section is the usage text (regenerate: npm run docs:rules)", () => {
    const block = /<!-- usage:start -->\n```\n([\s\S]*?)```\n<!-- usage:end -->/.exec(readme)?.[1];
    expect(block).toBe(USAGE);
  });
  test("the usage text lists every reporter of the table, and only those, as check's formats", () => {
    expect(USAGE).toContain(`[--format ${FORMATS.join("|")}]`);
    for (const f of FORMATS) expect(USAGE).toContain(`  ${f.padEnd(8)} ${REPORTERS[f].describe}`);
    expect(FORMATS).toEqual(Object.keys(REPORTERS));
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
  test("the README sends readers to the reference and contributors to CONTRIBUTING.md", () => {
    expect(readme).toContain("](docs/README.md)");
    expect(readme).toContain("](CONTRIBUTING.md)");
    for (const r of RULES) expect(readme).toContain(`](docs/rules/${r.id.replaceAll("/", "-")}.md)`);
  });
  test("the quick start's two commands are the ones package.json runs", () => {
    const pkg = JSON.parse(readFileSync("package.json", "utf8"));
    expect(readme).toContain("npm ci && npm run example");
    expect(readme).toContain("npm test ");
    expect(pkg.scripts.example).toMatch(/check --all --repo examples\/fleet/);
    expect(pkg.scripts.test).toBe("vitest run");
  });
});
