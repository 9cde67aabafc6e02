// The package as users get it, without the npm registry: the tarball `npm pack` makes, installed
// into a temp repository (with husky, or with the pre-commit framework); npm's install from a git URL
// (a tag of a bare clone of this repository, as `npm i -D github:<owner>/kvgate#v0.1.0` does); and the
// pre-commit framework cloning that tag through .pre-commit-hooks.yaml. Real `git commit`s, offline.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeRepo, GIT_ENV, type TempRepo } from "../helpers/repo.js";
import { ROOT } from "../helpers/cli.js";
import { commitCount, gitCommit, hasCommand, npmInstall, packHusky, packKvgate, snapshotInto } from "../helpers/install.js";

const GOOD = "ENGINE=radiance\nHOST=fv-ml1\nGPU=0\nGPU_HEADROOM_MIB=64\n";
const BAD = GOOD + 'SERVE_ARGS="--vram-kv-mib 4096"\n';
// CI installs Debian's pre-commit (.ci/run) and sets this, so a missing pre-commit fails there.
const preCommit = hasCommand("pre-commit");
const requirePreCommit = process.env.KVGATE_REQUIRE_PRE_COMMIT === "1";

let work: string;
let tarball: string;
let huskyTarball: string;
/** A bare repository holding this working tree as tag v0.1.0, and that commit's sha. */
let bare: string;
let sha: string;
const repos: TempRepo[] = [];

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "kvgate-install-"));
  tarball = packKvgate(join(work, "pack"));
  huskyTarball = packHusky(join(work, "pack"));
  bare = join(work, "kvgate.git");
  sha = snapshotInto(bare);
});
afterAll(async () => {
  for (const r of repos) await r.cleanup();
  rmSync(work, { recursive: true, force: true });
});

async function fleetRepo(files: Record<string, string> = {}): Promise<TempRepo> {
  const r = await makeRepo();
  repos.push(r);
  r.write("scripts/r.env", GOOD);
  r.write(".gitignore", "node_modules/\n");
  for (const [p, t] of Object.entries(files)) r.write(p, t);
  return r;
}

/** `npx kvgate init` from the repository, as the README says. */
function npxInit(r: TempRepo, env: Record<string, string> = {}) {
  const res = spawnSync("npx", ["--no-install", "kvgate", "init"], {
    cwd: r.dir,
    env: { ...GIT_ENV, NO_COLOR: "1", ...env },
    encoding: "utf8",
  });
  return { code: res.status, out: res.stdout + res.stderr };
}

function refusedThenPassed(r: TempRepo, env: Record<string, string> = {}): void {
  r.stage();
  expect(gitCommit(r, "kvgate init", env, ["--no-verify"]).code).toBe(0);
  r.write("scripts/r.env", BAD);
  r.stage();
  const bad = gitCommit(r, "r: pin the kv pool", env);
  expect(bad.code, bad.out).not.toBe(0);
  expect(bad.out).toContain("engine/removed-flag");
  expect(bad.out).toContain("REFUSED");
  expect(commitCount(r)).toBe(1);
  r.write("scripts/r.env", GOOD.replace("64", "96"));
  r.stage();
  const good = gitCommit(r, "r: more headroom", env);
  expect(good.code, good.out).toBe(0);
  expect(r.git("log", "-1", "--format=%B")).toMatch(/Kvgate-Verdict: pass tree=[0-9a-f]{40}/);
}

describe("the package, installed without the registry", () => {
  test("holds the CLI bundle, the hook runner and the rules, and depends on nothing", () => {
    const files = execFileSync("tar", ["tzf", tarball], { encoding: "utf8" }).trim().split("\n").sort();
    expect(files).toEqual([
      "package/CHANGELOG.md",
      "package/README.md",
      "package/bin/kvgate-hook",
      "package/bin/kvgate.js",
      "package/bin/load-cli.cjs",
      "package/dist/cli.cjs",
      "package/dist/compose-schema.cjs",
      "package/dist/fast.cjs",
      "package/package.json",
      "package/rules/cards.yaml",
      "package/rules/engines.yaml",
      "package/rules/kvgate.schema.json",
      "package/rules/models.yaml",
      "package/rules/policy.yaml",
      "package/rules/secrets.yaml",
    ]);
    const pkg = JSON.parse(execFileSync("tar", ["xzfO", tarball, "package/package.json"], { encoding: "utf8" })) as Record<string, unknown>;
    expect(pkg.dependencies).toBeUndefined();
    // npm prepares a git dependency (installs its dev dependencies, offline or not) when it has any of
    // these scripts: the build step is named `bundle` so that a git install pulls nothing.
    for (const s of ["prepare", "build", "install", "preinstall", "postinstall", "prepack"])
      expect((pkg.scripts as Record<string, string>)[s]).toBeUndefined();
    expect(pkg.bin).toEqual({ kvgate: "bin/kvgate.js" });
    // npm pack's stdout is the tarball's name alone (tools like pre-commit read it): no script prints there.
    expect(execFileSync("npm", ["pack", "--dry-run"], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] })).toBe(
      "kvgate-0.1.0.tgz\n",
    );
  });

  test("npm i -D ./kvgate-0.1.0.tgz with husky, npx kvgate init: live at once, a refused and a passing commit", async () => {
    const r = await fleetRepo({ "package.json": JSON.stringify({ name: "fleet", private: true }, null, 2) + "\n" });
    npmInstall(r, [tarball, huskyTarball]);
    expect(readdirSync(join(r.dir, "node_modules")).filter((n) => !n.startsWith("."))).toEqual(["husky", "kvgate"]);
    const init = npxInit(r);
    expect(init.code, init.out).toBe(0);
    expect(init.out).toContain("hooks     husky (a dependency in package.json)");
    expect(init.out).toContain("ran       husky: core.hooksPath=.husky/_");
    expect(init.out).toContain("proved    pre-commit");
    expect(init.out).not.toContain("warning");
    // Relative to the repository, so every clone's node_modules serves.
    expect(readFileSync(join(r.dir, ".husky/pre-commit"), "utf8")).toContain("sh node_modules/kvgate/bin/kvgate-hook check --staged");
    refusedThenPassed(r);
  });

  test("npm i -D from a git URL (a tag), no husky: nothing built, the hooks go into .git/hooks naming node_modules/kvgate", async () => {
    const r = await fleetRepo({ "package.json": JSON.stringify({ name: "fleet", private: true }) });
    npmInstall(r, [`git+file://${bare}#v0.1.0`]);
    expect(readdirSync(join(r.dir, "node_modules")).filter((n) => !n.startsWith("."))).toEqual(["kvgate"]);
    expect(existsSync(join(r.dir, "node_modules/kvgate/dist/cli.cjs"))).toBe(true);
    const init = npxInit(r);
    expect(init.code, init.out).toBe(0);
    expect(init.out).toContain("hooks     plain git (.git/hooks)");
    expect(readFileSync(join(r.dir, ".git/hooks/pre-commit"), "utf8")).toContain(
      "exec sh node_modules/kvgate/bin/kvgate-hook check --staged",
    );
    refusedThenPassed(r);
  });
});

describe.skipIf(!preCommit && !requirePreCommit)("the pre-commit framework (Debian's pre-commit)", () => {
  let home: string;
  let env: Record<string, string>;
  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), "kvgate-pre-commit-home-"));
    env = { PRE_COMMIT_HOME: home };
  });
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  test("pre-commit is installed (CI installs Debian's package)", () => {
    expect(preCommit).toBe(true);
  });

  test("from a git URL (.pre-commit-hooks.yaml): pre-commit install, then a refused and a passing commit", async () => {
    const r = await fleetRepo({
      ".pre-commit-config.yaml": `repos:\n  - repo: file://${bare}\n    rev: ${sha}\n    hooks:\n      - id: kvgate\n      - id: kvgate-prepare-commit-msg\n`,
    });
    const install = spawnSync("pre-commit", ["install", "-t", "pre-commit", "-t", "prepare-commit-msg"], {
      cwd: r.dir,
      env: { ...GIT_ENV, ...env },
      encoding: "utf8",
    });
    expect(install.status, install.stderr).toBe(0);
    refusedThenPassed(r, env);
    // The clone ran the committed bundle in place: nothing was built or installed.
    const clones = readdirSync(home).filter((d) => d.startsWith("repo"));
    expect(clones.some((d) => existsSync(join(home, d, "dist/cli.cjs")) && !existsSync(join(home, d, "node_modules")))).toBe(true);
  });

  test("npx kvgate init with a .pre-commit-config.yaml: a repo: local entry, proved once pre-commit is installed", async () => {
    const r = await fleetRepo({
      "package.json": JSON.stringify({ name: "fleet", private: true }),
      ".pre-commit-config.yaml":
        "repos:\n-   repo: local\n    hooks:\n    -   id: no-tabs\n        name: no tabs\n        entry: '\\t'\n        language: pygrep\n        types: [text]\n",
    });
    npmInstall(r, [tarball]);
    const before = npxInit(r, env);
    expect(before.code).toBe(1);
    expect(before.out).toContain("appended  .pre-commit-config.yaml: a repo: local entry");
    expect(before.out).toContain("fix: pre-commit install -t pre-commit -t prepare-commit-msg");

    expect(
      spawnSync("pre-commit", ["install", "-t", "pre-commit", "-t", "prepare-commit-msg"], { cwd: r.dir, env: { ...GIT_ENV, ...env } })
        .status,
    ).toBe(0);
    const after = npxInit(r, env);
    expect(after.code, after.out).toBe(0);
    expect(after.out).toContain("kept      .pre-commit-config.yaml (it lists kvgate and kvgate-prepare-commit-msg)");
    expect(after.out).toMatch(/proved {4}pre-commit: .*secret\/github-token/);
    expect(after.out).toContain('proved    prepare-commit-msg: the installed hook recorded "Kvgate-Verdict:');
    refusedThenPassed(r, env);
  });
});
