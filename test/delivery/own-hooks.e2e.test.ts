// The project's own hooks (.husky/), run as a developer's clone runs them: this working tree (as it is
// now, bundles included) cloned into a temp folder, this checkout's node_modules linked in, husky
// activated the way README's Development section says (`npx husky`: core.hooksPath = .husky/_), and
// real `git commit`s. Each step of .husky/pre-commit runs only when the staged change can change its
// answer, so the cases stage what reaches each step and stay fast: the strict typecheck (~20 s) is
// never reached, a badly formatted file stops the TypeScript steps at Prettier first.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cloneRepo, GIT_ENV, type TempRepo } from "../helpers/repo.js";
import { ROOT } from "../helpers/cli.js";
import { commitCount, gitCommit, snapshotInto } from "../helpers/install.js";
import { FAKE } from "../secrets/helpers.js";

const BUNDLES = ["dist/cli.cjs", "dist/fast.cjs", "dist/action/index.js"];
let bare: string;
let clone: TempRepo;

const trailer = (r: TempRepo): string => r.git("log", "-1", "--format=%(trailers:key=Kvgate-Verdict,valueonly)").trim();
/** The verdict a passing commit records: pass, for the tree it commits. */
const passed = (r: TempRepo): string => `pass tree=${r.git("rev-parse", "HEAD^{tree}").trim()}`;
const mtimes = (r: TempRepo): number[] => BUNDLES.map((b) => statSync(join(r.dir, b)).mtimeMs);

beforeAll(() => {
  bare = mkdtempSync(join(tmpdir(), "kvgate-own-"));
  snapshotInto(bare);
  clone = cloneRepo(bare);
  symlinkSync(join(ROOT, "node_modules"), join(clone.dir, "node_modules"));
  // .gitignore's `node_modules/` matches a folder, not a link to one: the clone's own exclude hides it.
  clone.write(".git/info/exclude", "node_modules\n");
  execFileSync(process.execPath, ["node_modules/husky/bin.js"], { cwd: clone.dir, env: GIT_ENV, encoding: "utf8" });
});
afterAll(async () => {
  await clone?.cleanup();
  rmSync(bare, { recursive: true, force: true });
});

describe("committing through this repository's .husky hooks", () => {
  test("husky is active in the clone (core.hooksPath .husky/_ runs .husky/<hook>)", () => {
    expect(clone.git("config", "core.hooksPath").trim()).toBe(".husky/_");
    expect(clone.git("status", "--porcelain")).toBe("");
  });

  test("a docs change passes: kvgate gates it, prepare-commit-msg records the Kvgate-Verdict trailer, nothing is rebuilt", () => {
    const before = commitCount(clone);
    const built = mtimes(clone);
    clone.write("CHANGELOG.md", `${readFileSync(join(clone.dir, "CHANGELOG.md"), "utf8")}\n- a note\n`);
    clone.stage(["CHANGELOG.md"]);
    const c = gitCommit(clone, "changelog: a note");
    expect(c.code, c.out).toBe(0);
    expect(commitCount(clone)).toBe(before + 1);
    expect(trailer(clone)).toBe(passed(clone));
    expect(mtimes(clone)).toEqual(built);
  });

  test("a staged key is refused by kvgate's gate of its own change, before any commit", () => {
    const before = commitCount(clone);
    clone.write("notes/deploy.env", `GITHUB_TOKEN=${FAKE.ghp}\n`);
    clone.stage(["notes/deploy.env"]);
    const c = gitCommit(clone, "notes: deploy");
    expect(c.code).not.toBe(0);
    expect(c.out).toContain("secret/github-token");
    expect(c.out).not.toContain(FAKE.ghp);
    expect(commitCount(clone)).toBe(before);
    clone.git("rm", "-q", "--cached", "notes/deploy.env");
    clone.remove("notes");
  });

  test("staged TypeScript goes through Prettier first: a badly formatted file is refused, naming it", () => {
    const before = commitCount(clone);
    clone.write("test/odd.test.ts", "export const   odd = [1,2 ,3]\n");
    clone.stage(["test/odd.test.ts"]);
    const c = gitCommit(clone, "test: odd");
    expect(c.code).not.toBe(0);
    expect(c.out).toMatch(/\[warn\] test\/odd\.test\.ts/);
    expect(commitCount(clone)).toBe(before);
    clone.git("rm", "-q", "--cached", "test/odd.test.ts");
    clone.remove("test/odd.test.ts");
  });

  test("a change the bundles are built from is refused until the rebuilt bundles are staged, then passes", () => {
    const before = commitCount(clone);
    const policy = readFileSync(join(clone.dir, "rules/policy.yaml"), "utf8");
    expect(policy).toContain("runaway_tokens: 100000 ");
    clone.write("rules/policy.yaml", policy.replace("runaway_tokens: 100000 ", "runaway_tokens: 120000 "));
    clone.stage(["rules/policy.yaml"]);
    const refused = gitCommit(clone, "rules: a longer runaway");
    expect(refused.code).not.toBe(0);
    expect(refused.out).toContain(
      "the rebuilt bundles differ from what is staged: git add dist/cli.cjs dist/fast.cjs dist/action/index.js",
    );
    expect(commitCount(clone)).toBe(before);
    // What the hook says to do.
    clone.stage([...BUNDLES, "src/checks/index.ts"]);
    const c = gitCommit(clone, "rules: a longer runaway");
    expect(c.code, c.out).toBe(0);
    expect(commitCount(clone)).toBe(before + 1);
    expect(trailer(clone)).toBe(passed(clone));
    expect(clone.git("show", "--name-only", "--format=", "HEAD").trim().split("\n").sort()).toEqual(
      [...BUNDLES, "rules/policy.yaml"].sort(),
    );
  });
});
