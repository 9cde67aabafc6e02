// `npm run new:rule <id>` scaffolds a rule's two files and lists it in src/checks/index.ts; the
// scaffold fails its table until written, and an id that is malformed or taken is refused. Run in a
// temporary copy of the parts it touches: the test never writes into the repository.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(".");
let dir = "";

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "kvgate-new-rule-"));
  for (const part of ["src", "test", "scripts", "rules", "package.json", "tsconfig.json", "vitest.config.ts"])
    cpSync(join(ROOT, part), join(dir, part), { recursive: true });
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const newRule = (...args: string[]) => {
  const r = spawnSync(process.execPath, ["scripts/new-rule.mjs", ...args], { cwd: dir, encoding: "utf8" });
  return { code: r.status, out: r.stdout + r.stderr };
};

describe("npm run new:rule", () => {
  test("scaffolds the module and its table, and lists the rule in src/checks/index.ts", () => {
    const before = readFileSync(join(dir, "src/checks/index.ts"), "utf8");
    const r = newRule("kv/prefix-cache");
    expect(r.code, r.out).toBe(0);
    const rule = readFileSync(join(dir, "src/checks/kv-prefix-cache.ts"), "utf8");
    expect(rule).toMatch(/^\/\/ kv\/prefix-cache: TODO/);
    expect(rule).toContain('export const kvPrefixCache = defineCheck({\n  id: "kv/prefix-cache",');
    expect(readFileSync(join(dir, "test/rules/tables/kv-prefix-cache.ts"), "utf8")).toContain("export default ruleTester(kvPrefixCache, {");
    const index = readFileSync(join(dir, "src/checks/index.ts"), "utf8");
    expect(index).not.toBe(before);
    expect(index).toContain('import { kvPrefixCache } from "./kv-prefix-cache.js";');
    const listed = execIndex();
    expect(index).toBe(listed);
    expect(r.out).toContain("npx vitest run test/rules/rules.test.ts -t kv/prefix-cache");
  });

  test("the scaffold loads, and its two cases fail until they are written", () => {
    const run = spawnSync(
      process.execPath,
      ["node_modules/vitest/vitest.mjs", "run", "test/rules/rules.test.ts", "-t", "kv/prefix-cache"],
      {
        cwd: dir,
        encoding: "utf8",
        env: { ...process.env, KVGATE_SKIP_BUILD: "1", NO_COLOR: "1" },
      },
    );
    const out = run.stdout + run.stderr;
    expect(run.status, out).toBe(1);
    expect(out).toMatch(/2 failed/);
    expect(out).toContain('kv/prefix-cache: "TODO: what passes" is a scaffold of npm run new:rule: write the case');
    expect(out).toContain('kv/prefix-cache: "TODO: what is refused" is a scaffold of npm run new:rule: write the case');
  }, 120_000);

  test.each([
    ["kv/covers-context", "src/checks/kv-covers-context.ts exists"],
    ["kv-covers/context", "src/checks/kv-covers-context.ts exists"],
    ["secret/github-token", "secret/github-token is a secret detector of rules/secrets.yaml"],
    ["kv/prefix-cache", "src/checks/kv-prefix-cache.ts exists"],
    ["KV/Bad", '"KV/Bad" is not a rule id'],
    ["nofamily", '"nofamily" is not a rule id'],
    ["a/b/c", '"a/b/c" is not a rule id'],
    ["kv/-x", '"kv/-x" is not a rule id'],
  ])("refuses %s, writing nothing", (id, why) => {
    const files = readdirSync(join(dir, "src/checks")).sort();
    const index = readFileSync(join(dir, "src/checks/index.ts"), "utf8");
    const r = newRule(id);
    expect(r.code).toBe(1);
    expect(r.out).toContain(why);
    expect(readdirSync(join(dir, "src/checks")).sort()).toEqual(files);
    expect(readFileSync(join(dir, "src/checks/index.ts"), "utf8")).toBe(index);
  });

  test("no id, or two, is a usage line", () => {
    expect(newRule().out).toContain("usage: npm run new:rule <family/name>");
    expect(newRule("a/b", "c/d").code).toBe(1);
    expect(existsSync(join(dir, "src/checks/a-b.ts"))).toBe(false);
  });
});

function execIndex(): string {
  return spawnSync(process.execPath, ["scripts/checks-index.mjs", "--stdout"], { cwd: dir, encoding: "utf8" }).stdout;
}
