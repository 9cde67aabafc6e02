// docs/rules/ holds one page per rule id, each exactly what the rule and its table make now
// (./rule-pages.ts; regenerate with `npm run docs:rules`), and nothing else; every finding links there.
import { describe, expect, test } from "vitest";
import { readFileSync, readdirSync } from "node:fs";
import { RULES, RULE_MODULES_BY_ID } from "../../src/checks/registry.js";
import { DOCS_URL, ruleDocFile, ruleDocUrl } from "../../src/report/rules-doc.js";
import { tmpdir } from "node:os";
import { kvgate } from "../helpers/cli.js";
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
  test("kvgate rules <id> prints the rule and its page; the list says where pages are; JSON carries each page", () => {
    const one = kvgate(["rules", "kv/covers-context"], { cwd: tmpdir() });
    expect(one.code).toBe(0);
    expect(one.stdout).toBe(
      `kv/covers-context  error\n${RULES.find((r) => r.id === "kv/covers-context")?.description}\n${ruleDocUrl("kv/covers-context")}\n`,
    );
    expect(kvgate(["rules"], { cwd: tmpdir() }).stdout).toContain(`${DOCS_URL}/rules/`);
    const json = JSON.parse(kvgate(["rules", "--format", "json"], { cwd: tmpdir() }).stdout);
    expect(json.map((r: { id: string }) => r.id)).toEqual(RULES.map((r) => r.id));
    expect(json.find((r: { id: string }) => r.id === "secret/github-token").docs).toBe(ruleDocUrl("secret/github-token"));
  });
  test("an id kvgate does not have is a usage error naming the nearest", () => {
    const bad = kvgate(["rules", "kv/covers-contxt"], { cwd: tmpdir() });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"kv/covers-contxt" is not a kvgate rule; did you mean kv/covers-context?');
  });
});
