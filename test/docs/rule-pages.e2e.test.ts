// Every finding links to its rule's page (docs/rules/, checked in rule-pages.test.ts): `kvgate rules`
// through the built CLI prints the page's address for one rule, in the list, and in JSON.
import { describe, expect, test } from "vitest";
import { tmpdir } from "node:os";
import { RULES } from "../../src/checks/registry.js";
import { DOCS_URL, ruleDocUrl } from "../../src/report/rules-doc.js";
import { kvgate } from "../helpers/cli.js";

describe("every finding links to its page", () => {
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
