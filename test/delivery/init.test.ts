// `kvgate init` in real temp repositories, then real `git commit`s through the hooks it installed:
// plain git (hooks chained, never dropped), husky (live with no extra step), the proof on a canary,
// and hooks run with a PATH that has no node (what a GUI client gives them).
import { afterEach, describe, expect, test } from "vitest";
import { spawnSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeRepo, GIT_ENV, type TempRepo } from "../helpers/repo.js";
import { kvgate, ROOT } from "../helpers/cli.js";
import { addHusky, commitCount, FIXED_NODE_PLACES, gitCommit, pathWithoutNode } from "../helpers/install.js";
import { parseConfig } from "../../src/config/load.js";
import { hostsOf, scanService, starterConfig } from "../../src/init/starter.js";

const GOOD = "ENGINE=radiance\nHOST=fv-ml1\nGPU=0\nGPU_HEADROOM_MIB=64\n";
// radiance 1.9 removed --vram-kv-mib: engine/removed-flag, an error.
const BAD = GOOD + 'SERVE_ARGS="--vram-kv-mib 4096"\n';
const RUNNER = join(ROOT, "bin", "kvgate-hook");

const made: { cleanup(): Promise<void> | void }[] = [];
afterEach(async () => {
  for (const r of made.splice(0)) await r.cleanup();
});

async function userRepo(files: Record<string, string> = { "scripts/r.env": GOOD }): Promise<TempRepo> {
  const r = await makeRepo();
  made.push(r);
  for (const [p, t] of Object.entries(files)) r.write(p, t);
  return r;
}

function scratch(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push({ cleanup: () => rmSync(dir, { recursive: true, force: true }) });
  return dir;
}

function init(r: TempRepo, env: Record<string, string | undefined> = {}) {
  return kvgate(["init"], { cwd: r.dir, env });
}

/** A script hook that leaves a mark when git runs it (and passes). */
function markingHook(r: TempRepo, path: string, mark: string): void {
  r.write(path, `#!/bin/sh\necho "$0 $*" >> "${join(r.dir, mark)}"\ncat > /dev/null\n`);
  chmodSync(join(r.dir, path), 0o755);
}

/** After init, commit its files with the hooks skipped (the setup commit), then stage `text` as r.env. */
function setUp(r: TempRepo, text: string): void {
  r.stage();
  const setup = gitCommit(r, "kvgate init", {}, ["--no-verify"]);
  expect(setup.code, setup.out).toBe(0);
  r.write("scripts/r.env", text);
  r.stage();
}

function expectRefused(r: TempRepo, res: { code: number | null; out: string }, before: number): void {
  expect(res.code, res.out).not.toBe(0);
  expect(res.out).toContain("engine/removed-flag");
  expect(res.out).toMatch(/scripts\/r\.env:5 error/);
  expect(res.out).toContain("REFUSED");
  expect(commitCount(r)).toBe(before);
}

describe("starter kvgate.yaml", () => {
  test("hosts and cards come from the env files; services without HOST join the only host", () => {
    const services = [
      scanService("scripts/a.env", "ENGINE=vllm\nHOST=fv-ml1\nGPU=1\n"),
      scanService("scripts/b.env", "ENGINE=radiance\nCUDA_VISIBLE_DEVICES=0,2\n"),
      scanService("scripts/c.env", "export ENGINE=VLLM\nHOST=fv-ml1\n"),
    ];
    expect(services.map((s) => [s.name, s.engine, s.host, s.gpus])).toEqual([
      ["a", "vllm", "fv-ml1", [1]],
      ["b", "radiance", null, [0, 2]],
      ["c", "vllm", "fv-ml1", []],
    ]);
    expect([...hostsOf(services)]).toEqual([["fv-ml1", [0, 1, 2]]]);
    const text = starterConfig(services);
    const cfg = parseConfig(text, "kvgate.yaml");
    expect(cfg.fleet?.hosts?.["fv-ml1"]?.gpus.map((g) => [g.index, g.total])).toEqual([[0, "80GiB"], [1, "80GiB"], [2, "80GiB"]]);
    expect(text.match(/TODO: set the card's real size/g)).toHaveLength(3);
    expect(text).toContain("#     a: { pinned: 8GiB, by: <owner> }");
  });
  test("two hosts and no HOST on a service: that service's cards are not guessed", () => {
    const services = [scanService("scripts/a.env", "HOST=h1\nGPU=0\n"), scanService("scripts/b.env", "HOST=h2\nGPU=1\n"), scanService("scripts/c.env", "GPU=3\n")];
    expect([...hostsOf(services)]).toEqual([["h1", [0]], ["h2", [1]]]);
    expect(() => parseConfig(starterConfig(services), "kvgate.yaml")).not.toThrow();
  });
  test("no service files: a valid config with the fleet left as a comment", () => {
    const text = starterConfig([]);
    expect(parseConfig(text, "kvgate.yaml")).toEqual({ version: 1, services: "scripts/*.env" });
    expect(text).toContain("# fleet:");
  });
});

describe("kvgate init, plain git", () => {
  test("installs into .git/hooks, proves them on a canary, writes the config and workflow; a second run changes nothing", async () => {
    const r = await userRepo({ "scripts/r.env": GOOD, "scripts/voices.env": "ENGINE=vllm\nHOST=fv-ml1\nGPU=1\n" });
    const first = init(r);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(first.stdout).toContain("hooks     plain git (.git/hooks)");
    expect(first.stdout).toContain("wrote     .git/hooks/pre-commit");
    expect(first.stdout).toContain("wrote     .git/hooks/prepare-commit-msg");
    expect(first.stdout).toMatch(/proved {4}pre-commit: the installed hook refused a canary commit .*secret\/github-token, exit 1/);
    expect(first.stdout).toContain('proved    prepare-commit-msg: the installed hook recorded "Kvgate-Verdict: not-run"');
    expect(first.stdout).toContain("wrote     kvgate.yaml (2 service files; 2 TODOs to fill in)");
    expect(spawnSync("git", ["config", "core.hooksPath"], { cwd: r.dir, env: GIT_ENV }).status).toBe(1);
    const hook = readFileSync(join(r.dir, ".git/hooks/pre-commit"), "utf8");
    expect(hook).toContain(`exec sh ${RUNNER} check --staged`);
    expect(hook).not.toContain("npx");
    expect(statSync(join(r.dir, ".git/hooks/pre-commit")).mode & 0o111).not.toBe(0);
    const cfg = parseConfig(readFileSync(join(r.dir, "kvgate.yaml"), "utf8"), "kvgate.yaml");
    expect(cfg.fleet?.hosts?.["fv-ml1"]?.gpus.map((g) => g.index)).toEqual([0, 1]);
    expect(readFileSync(join(r.dir, ".github/workflows/kvgate.yml"), "utf8")).toContain('branches: ["main"]');
    const files = ["kvgate.yaml", ".git/hooks/pre-commit", ".git/hooks/prepare-commit-msg", ".github/workflows/kvgate.yml"];
    const before = files.map((p) => readFileSync(join(r.dir, p), "utf8"));
    const second = kvgate(["init", "--repo", r.dir], { cwd: tmpdir() });
    expect(second.code).toBe(0);
    expect(second.stdout).toContain("kept      .git/hooks/pre-commit (kvgate's)");
    expect(second.stdout).toContain("nothing to change: kvgate is already set up here, and its hooks are live");
    expect(files.map((p) => readFileSync(join(r.dir, p), "utf8"))).toEqual(before);
  });

  test("the proof touches neither the index, the work tree, the refs nor the object store, and leaves no verdict", async () => {
    const r = await userRepo();
    r.commit("base", { allowEmpty: true });
    r.write("notes.txt", "staged by the user\n");
    r.stage(["notes.txt"]);
    r.write("notes.txt", "then edited, unstaged\n");
    const index = readFileSync(join(r.dir, ".git/index"));
    const objects = r.git("count-objects", "-v");
    const refs = r.git("show-ref");
    expect(init(r).code).toBe(0);
    expect(readFileSync(join(r.dir, ".git/index")).equals(index)).toBe(true);
    expect(r.git("count-objects", "-v")).toBe(objects);
    expect(r.git("show-ref")).toBe(refs);
    expect(readFileSync(join(r.dir, "notes.txt"), "utf8")).toBe("then edited, unstaged\n");
    expect(existsSync(join(r.dir, "kvgate-canary.txt"))).toBe(false);
    expect(readdirSync(join(r.dir, ".git/kvgate/verdicts"))).toEqual([]);
  });

  test("real commits: refused with kvgate's message; HUSKY=0 skips; a good one passes with the trailer", async () => {
    const r = await userRepo();
    expect(init(r).code).toBe(0);
    setUp(r, BAD);
    expectRefused(r, gitCommit(r, "r: pin the kv pool"), 1);
    expect(gitCommit(r, "r: pin the kv pool", { HUSKY: "0" }).code).toBe(0);
    expect(commitCount(r)).toBe(2);
    r.write("scripts/r.env", GOOD.replace("64", "96"));
    r.stage();
    const res = gitCommit(r, "r: more headroom");
    expect(res.code, res.out).toBe(0);
    expect(r.git("log", "-1", "--format=%B")).toMatch(/Kvgate-Verdict: pass tree=[0-9a-f]{40}/);
  });

  test("hooks already in .git/hooks keep running: pre-commit and prepare-commit-msg chained, pre-push untouched", async () => {
    const r = await userRepo();
    markingHook(r, ".git/hooks/pre-commit", "ran-pre-commit");
    markingHook(r, ".git/hooks/prepare-commit-msg", "ran-prepare");
    markingHook(r, ".git/hooks/pre-push", "ran-pre-push");
    const prePush = readFileSync(join(r.dir, ".git/hooks/pre-push"), "utf8");
    const out = init(r);
    expect(out.code, out.stdout).toBe(0);
    expect(out.stdout).toContain("chained   .git/hooks/pre-commit: the hook that was there now runs first, from .git/hooks/pre-commit.kvgate-chained; then kvgate");
    expect(out.stdout).toContain("left as they were: pre-push");
    // The proof ran kvgate alone: the user's hooks left no mark.
    expect(existsSync(join(r.dir, "ran-pre-commit"))).toBe(false);
    expect(readFileSync(join(r.dir, ".git/hooks/pre-push"), "utf8")).toBe(prePush);

    setUp(r, BAD);
    rmSync(join(r.dir, "ran-pre-commit"), { force: true });
    expectRefused(r, gitCommit(r, "bad"), 1);
    expect(readFileSync(join(r.dir, "ran-pre-commit"), "utf8")).toContain("pre-commit.kvgate-chained");

    r.write("scripts/r.env", GOOD.replace("64", "96"));
    r.stage();
    expect(gitCommit(r, "good").code).toBe(0);
    expect(readFileSync(join(r.dir, "ran-prepare"), "utf8")).toMatch(/prepare-commit-msg\.kvgate-chained \.git\/COMMIT_EDITMSG message/);
    expect(r.git("log", "-1", "--format=%B")).toContain("Kvgate-Verdict: pass");

    const remote = scratch("kvgate-remote-");
    spawnSync("git", ["init", "-q", "--bare", remote], { env: GIT_ENV });
    const push = spawnSync("git", ["push", "-q", remote, "main"], { cwd: r.dir, env: GIT_ENV, encoding: "utf8" });
    expect(push.status, push.stderr).toBe(0);
    expect(readFileSync(join(r.dir, "ran-pre-push"), "utf8")).toContain(`.git/hooks/pre-push ${remote} ${remote}`);
  });

  test("a failing chained hook still stops the commit", async () => {
    const r = await userRepo();
    r.write(".git/hooks/pre-commit", "#!/bin/sh\necho 'lint: no' >&2\nexit 3\n");
    chmodSync(join(r.dir, ".git/hooks/pre-commit"), 0o755);
    expect(init(r).code).toBe(0);
    setUp(r, GOOD.replace("64", "96"));
    const res = gitCommit(r, "good but linted out");
    expect(res.code).not.toBe(0);
    expect(res.out).toContain("lint: no");
    expect(commitCount(r)).toBe(1);
  });

  test("core.hooksPath inside the repository: installed there, its hooks chained", async () => {
    const r = await userRepo();
    markingHook(r, ".githooks/pre-commit", "ran-githooks");
    r.git("config", "core.hooksPath", ".githooks");
    const out = init(r);
    expect(out.code, out.stdout).toBe(0);
    expect(out.stdout).toContain("hooks     plain git (core.hooksPath=.githooks)");
    expect(out.stdout).toContain("chained   .githooks/pre-commit");
    expect(out.stdout).not.toContain("is per clone");
    setUp(r, BAD);
    expectRefused(r, gitCommit(r, "bad"), 1);
    expect(existsSync(join(r.dir, "ran-githooks"))).toBe(true);
  });

  test("core.hooksPath shared with other repositories: nothing written there, exit 1 with the lines to add", async () => {
    const r = await userRepo();
    const shared = scratch("kvgate-shared-hooks-");
    r.git("config", "core.hooksPath", shared);
    const out = init(r);
    expect(out.code).toBe(1);
    expect(out.stdout).toContain(`NOT LIVE: the kvgate hooks do not run on your commits yet: core.hooksPath is ${shared}`);
    expect(out.stdout).toContain(`fix: add to ${join(shared, "pre-commit")}: [ "\${HUSKY-}" = "0" ] || sh ${RUNNER} check --staged || exit $?`);
    expect(readdirSync(shared)).toEqual([]);
  });

  test("a chained copy already in the way: refused, both files kept", async () => {
    const r = await userRepo();
    markingHook(r, ".git/hooks/pre-commit", "a");
    markingHook(r, ".git/hooks/pre-commit.kvgate-chained", "b");
    const out = init(r);
    expect(out.code).toBe(1);
    expect(out.stdout).toContain(".git/hooks/pre-commit is not kvgate's and .git/hooks/pre-commit.kvgate-chained already exists");
    expect(readFileSync(join(r.dir, ".git/hooks/pre-commit"), "utf8")).toContain("/a\"");
  });

  test("hooks that do not refuse the canary: NOT LIVE, exit 1, with their output", async () => {
    // A kvgate.yaml that excludes the canary's file from the secret scan: the hook passes it.
    const r = await userRepo({ "scripts/r.env": GOOD, "kvgate.yaml": 'version: 1\nsecrets:\n  exclude: ["kvgate-canary.txt"]\n' });
    r.stage(); // the staged check reads the policy from the index
    const out = init(r);
    expect(out.code).toBe(1);
    expect(out.stdout).toMatch(/NOT LIVE {2}pre-commit: .* the installed hook let it through \(exit 0\)/);
    expect(out.stdout).toContain("NOT LIVE: the kvgate hooks do not run on your commits yet: the installed hooks did not refuse the canary commit");
    expect(out.stdout).toContain("| kvgate staged:");
  });

  test("an earlier init's .husky layout without husky (core.hooksPath=.husky, npx lines): updated in place", async () => {
    const old = (args: string) => `#!/usr/bin/env sh\n# kvgate (added by \`kvgate init\`): HUSKY=0 skips it; KVGATE_BIN overrides the command.\n[ "\${HUSKY-}" = "0" ] || \${KVGATE_BIN:-npx --no-install kvgate} ${args} || exit $?\n`;
    const r = await userRepo({ "scripts/r.env": GOOD, ".husky/pre-commit": old("check --staged"), ".husky/prepare-commit-msg": old('hook prepare-commit-msg "$@"') });
    for (const h of ["pre-commit", "prepare-commit-msg"]) chmodSync(join(r.dir, ".husky", h), 0o755);
    r.git("config", "core.hooksPath", ".husky");
    const out = init(r);
    expect(out.code, out.stdout).toBe(0);
    expect(out.stdout).toContain("updated   .husky/pre-commit (kvgate's line now calls the installed binary)");
    expect(readFileSync(join(r.dir, ".husky/pre-commit"), "utf8")).not.toContain("npx");
  });

  test("outside a repository it says what to do (exit 2)", async () => {
    const dir = scratch("kvgate-norepo-");
    const out = kvgate(["init"], { cwd: dir, env: { GIT_CEILING_DIRECTORIES: tmpdir() } });
    expect(out.code).toBe(2);
    expect(out.stderr).toContain("is not in a git repository");
  });
});

describe("kvgate init, husky", () => {
  test("husky installed: prepare added, husky run, live on exit; the very next commit is refused", async () => {
    const r = await userRepo();
    addHusky(r);
    const out = init(r);
    expect(out.code, out.stdout).toBe(0);
    expect(out.stdout).toContain("hooks     husky (a dependency in package.json)");
    expect(out.stdout).toContain('set       package.json scripts "prepare": "husky"');
    expect(out.stdout).toContain("ran       husky: core.hooksPath=.husky/_");
    expect(out.stdout).toContain("proved    pre-commit");
    expect(r.git("config", "core.hooksPath").trim()).toBe(".husky/_");
    expect(JSON.parse(readFileSync(join(r.dir, "package.json"), "utf8")).scripts).toEqual({ prepare: "husky" });
    expect(readFileSync(join(r.dir, ".husky/pre-commit"), "utf8")).toContain(`sh ${RUNNER} check --staged`);

    r.write("scripts/r.env", BAD);
    r.stage();
    const res = gitCommit(r, "first commit, with a removed radiance flag");
    expect(res.code, res.out).not.toBe(0);
    expect(res.out).toContain("engine/removed-flag");
    expect(res.out).toContain("husky - pre-commit script failed");
    expect(commitCount(r)).toBe(0);

    r.write("scripts/r.env", GOOD);
    r.stage();
    expect(gitCommit(r, "first commit").code).toBe(0);
    expect(r.git("log", "-1", "--format=%B")).toContain("Kvgate-Verdict: pass");
    expect(init(r).stdout).toContain("nothing to change");
  });

  test("the user's own .husky lines run, before kvgate; the proof ran kvgate alone", async () => {
    const r = await userRepo();
    addHusky(r);
    r.write(".husky/pre-commit", `echo user-lint >> "${join(r.dir, "ran-user")}"\n`);
    const out = init(r);
    expect(out.code, out.stdout).toBe(0);
    expect(out.stdout).toContain("appended  .husky/pre-commit (kept its lines; kvgate's runs last, on the index they leave)");
    expect(existsSync(join(r.dir, "ran-user"))).toBe(false);
    setUp(r, BAD);
    expectRefused(r, gitCommit(r, "bad"), 1);
    expect(readFileSync(join(r.dir, "ran-user"), "utf8")).toBe("user-lint\n");
  });

  test("husky before 9 (core.hooksPath=.husky, git runs .husky/<hook>): kvgate's lines added there, live, nothing activated", async () => {
    const r = await userRepo({ "scripts/r.env": GOOD, "package.json": JSON.stringify({ devDependencies: { husky: "^8" }, scripts: { prepare: "husky install" } }), ".husky/_/husky.sh": "# husky 8's helper\n" });
    r.write(".husky/pre-commit", `#!/usr/bin/env sh\n. "$(dirname -- "$0")/_/husky.sh"\n\necho husky8-user >> "${join(r.dir, "ran-user")}"\n`);
    chmodSync(join(r.dir, ".husky/pre-commit"), 0o755);
    r.git("config", "core.hooksPath", ".husky");
    const pkg = readFileSync(join(r.dir, "package.json"), "utf8");
    const out = init(r);
    expect(out.code, out.stdout).toBe(0);
    expect(out.stdout).toContain("live      husky before 9 (core.hooksPath=.husky)");
    expect(out.stdout).not.toContain("ran       husky");
    expect(readFileSync(join(r.dir, "package.json"), "utf8")).toBe(pkg);
    expect(r.git("config", "core.hooksPath").trim()).toBe(".husky");
    setUp(r, BAD);
    expectRefused(r, gitCommit(r, "bad"), 1);
    expect(readFileSync(join(r.dir, "ran-user"), "utf8")).toBe("husky8-user\n");
  });

  test("husky in package.json but not installed: NOT LIVE, exit 1, npm install", async () => {
    const r = await userRepo({ "scripts/r.env": GOOD, "package.json": JSON.stringify({ devDependencies: { husky: "^9" } }) });
    const out = init(r);
    expect(out.code).toBe(1);
    expect(out.stdout).toContain("NOT LIVE: the kvgate hooks do not run on your commits yet: husky is in package.json but not installed");
    expect(out.stdout).toContain("fix: npm install (its prepare script runs husky)");
    expect(spawnSync("git", ["config", "core.hooksPath"], { cwd: r.dir, env: GIT_ENV }).status).toBe(1);
  });

  test("husky would silence a live .git/hooks/pre-push (git-lfs): refused before any change, exit 1", async () => {
    const r = await userRepo();
    addHusky(r);
    r.write(".git/hooks/pre-push", '#!/bin/sh\ncommand -v git-lfs >/dev/null 2>&1 || exit 2\ngit lfs pre-push "$@"\n');
    chmodSync(join(r.dir, ".git/hooks/pre-push"), 0o755);
    const out = init(r);
    expect(out.code).toBe(1);
    expect(out.stdout).toContain("git would stop running .git/hooks/pre-push; kvgate does not drop hooks");
    expect(out.stdout).toContain('`git lfs pre-push "$@"` in .husky/pre-push');
    expect(spawnSync("git", ["config", "core.hooksPath"], { cwd: r.dir, env: GIT_ENV }).status).toBe(1);
    expect(existsSync(join(r.dir, ".husky"))).toBe(false);
  });
});

describe("kvgate init, the pre-commit framework (the runs through pre-commit are in install.test.ts)", () => {
  const CONFIG = "repos:\n- repo: local\n  hooks: []\n";

  test("kvgate not installed in the repository: the shared config cannot name this machine's path; NOT LIVE, config untouched", async () => {
    const r = await userRepo({ "scripts/r.env": GOOD, ".pre-commit-config.yaml": CONFIG });
    const out = init(r);
    expect(out.code).toBe(1);
    expect(out.stdout).toContain("hooks     the pre-commit framework (.pre-commit-config.yaml)");
    expect(out.stdout).toContain("NOT LIVE: the kvgate hooks do not run on your commits yet: kvgate is not installed in this repository");
    expect(readFileSync(join(r.dir, ".pre-commit-config.yaml"), "utf8")).toBe(CONFIG);
  });

  test("pre-commit not on PATH: the entry is added (stage commit, which every version accepts), NOT LIVE with what to install", async () => {
    const r = await userRepo({ "scripts/r.env": GOOD, ".pre-commit-config.yaml": CONFIG });
    // kvgate as npm installs it into the repository (the files its package ships).
    for (const f of ["bin/kvgate.js", "bin/kvgate-hook", "dist/cli.js", "rules", "package.json"]) cpSync(join(ROOT, f), join(r.dir, "node_modules/kvgate", f), { recursive: true });
    const path = scratch("kvgate-path-");
    for (const tool of ["git", "sh"]) symlinkSync(spawnSync("sh", ["-c", `command -v ${tool}`], { encoding: "utf8" }).stdout.trim(), join(path, tool));
    const res = spawnSync(process.execPath, [join(r.dir, "node_modules/kvgate/bin/kvgate.js"), "init"], { cwd: r.dir, env: { ...GIT_ENV, PATH: path }, encoding: "utf8" });
    expect(res.status, res.stdout + res.stderr).toBe(1);
    expect(res.stdout).toContain("appended  .pre-commit-config.yaml: a repo: local entry, hooks kvgate (stage commit) and kvgate-prepare-commit-msg, calling node_modules/kvgate/bin/kvgate-hook");
    expect(res.stdout).toContain("NOT LIVE: the kvgate hooks do not run on your commits yet: pre-commit is not on PATH");
    expect(res.stdout).toContain("fix: pre-commit install -t pre-commit -t prepare-commit-msg");
    expect(readFileSync(join(r.dir, ".pre-commit-config.yaml"), "utf8")).toContain("entry: sh node_modules/kvgate/bin/kvgate-hook check --staged");
  });
});

describe("hooks run with a PATH that has no node (a GUI client, an IDE)", () => {
  const fixed = FIXED_NODE_PLACES.find((p) => existsSync(p));

  async function initialised(): Promise<TempRepo> {
    const r = await userRepo();
    expect(init(r).code).toBe(0);
    setUp(r, BAD);
    return r;
  }
  /** The environment a client with a bare PATH gives git: no node on PATH, HOME as given. */
  function bare(home: string, extra: Record<string, string> = {}): Record<string, string | undefined> {
    return { PATH: pathWithoutNode(), HOME: home, XDG_CONFIG_HOME: undefined, NVM_DIR: undefined, VOLTA_HOME: undefined, FNM_DIR: undefined, ASDF_DATA_DIR: undefined, KVGATE_NODE: undefined, ...extra };
  }

  test.skipIf(fixed !== undefined)("node nowhere: the commit is stopped with the fix, never let through", async () => {
    const r = await initialised();
    r.write("scripts/r.env", GOOD.replace("64", "96")); // a change the gate would pass
    r.stage();
    const res = gitCommit(r, "good, but no node", bare(scratch("kvgate-home-")));
    expect(res.code).not.toBe(0);
    expect(res.out).toContain("kvgate: cannot find node to run the fleet gate, so the commit is stopped");
    expect(res.out).toContain("husky/init.sh");
    expect(res.out).toContain("KVGATE_NODE=/path/to/node");
    expect(commitCount(r)).toBe(1);
  });

  test("node from nvm's folder (its default alias), with node off PATH: the gate runs and refuses", async () => {
    const r = await initialised();
    const home = scratch("kvgate-home-");
    for (const v of ["v20.20.2", "v22.1.0"]) {
      mkdirSync(join(home, ".nvm/versions/node", v, "bin"), { recursive: true });
      // v22, the newest, is a decoy that fails loudly: the default alias names v20.
      if (v === "v22.1.0") writeFileSync(join(home, ".nvm/versions/node", v, "bin/node"), "#!/bin/sh\necho decoy-node >&2\nexit 9\n", { mode: 0o755 });
      else symlinkSync(process.execPath, join(home, ".nvm/versions/node", v, "bin/node"));
    }
    mkdirSync(join(home, ".nvm/alias"));
    writeFileSync(join(home, ".nvm/alias/default"), "20\n");
    expectRefused(r, gitCommit(r, "bad", bare(home)), 1);
  });

  test("node loaded by ~/.config/husky/init.sh, as husky's docs tell GUI users", async () => {
    const r = await initialised();
    const home = scratch("kvgate-home-");
    const nodeDir = join(home, "somewhere/bin");
    mkdirSync(nodeDir, { recursive: true });
    symlinkSync(process.execPath, join(nodeDir, "node"));
    mkdirSync(join(home, ".config/husky"), { recursive: true });
    writeFileSync(join(home, ".config/husky/init.sh"), `export PATH="${nodeDir}:$PATH"\n`);
    expectRefused(r, gitCommit(r, "bad", bare(home)), 1);
    r.write("scripts/r.env", GOOD.replace("64", "96"));
    r.stage();
    expect(gitCommit(r, "good", bare(home)).code).toBe(0);
    expect(r.git("log", "-1", "--format=%B")).toContain("Kvgate-Verdict: pass");
  });

  test("KVGATE_NODE names node; a KVGATE_NODE that is not a program stops the commit", async () => {
    const r = await initialised();
    const home = scratch("kvgate-home-");
    expectRefused(r, gitCommit(r, "bad", bare(home, { KVGATE_NODE: process.execPath })), 1);
    r.write("scripts/r.env", GOOD.replace("64", "96"));
    r.stage();
    const wrong = gitCommit(r, "good", bare(home, { KVGATE_NODE: join(home, "no-such-node") }));
    expect(wrong.code).not.toBe(0);
    expect(wrong.out).toContain("is not an executable file");
    expect(commitCount(r)).toBe(1);
  });

  test("husky's hooks too: node found through init.sh, and the fix when it is nowhere", async () => {
    const r = await userRepo();
    addHusky(r);
    expect(init(r).code).toBe(0);
    setUp(r, BAD);
    const home = scratch("kvgate-home-");
    if (!fixed) {
      const res = gitCommit(r, "bad", bare(home));
      expect(res.code).not.toBe(0);
      expect(res.out).toContain("cannot find node");
      expect(commitCount(r)).toBe(1);
    }
    mkdirSync(join(home, ".config/husky"), { recursive: true });
    writeFileSync(join(home, ".config/husky/init.sh"), `export PATH="${join(process.execPath, "..")}:$PATH"\n`);
    expectRefused(r, gitCommit(r, "bad", bare(home)), 1);
  });
});
