// `kvgate init` in a user's repository, then real `git commit`s through the hooks it installed.
import { afterEach, describe, expect, test } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeRepo, GIT_ENV, type TempRepo } from "../helpers/repo.js";
import { kvgate, BIN } from "../helpers/cli.js";
import { parseConfig } from "../../src/config/load.js";
import { mergeHook, hasKvgate, HOOK_LINES } from "../../src/init/hooks.js";
import { hostsOf, scanService, starterConfig } from "../../src/init/starter.js";

const GOOD = "ENGINE=radiance\nHOST=fv-ml1\nGPU=0\nGPU_HEADROOM_MIB=64\n";
const BAD = GOOD + 'SERVE_ARGS="--vram-kv-mib 4096"\n';
const KVGATE_BIN = `${process.execPath} ${BIN}`;

const repos: TempRepo[] = [];
afterEach(async () => {
  for (const r of repos.splice(0)) await r.cleanup();
});

async function userRepo(files: Record<string, string> = { "scripts/r.env": GOOD }): Promise<TempRepo> {
  const r = await makeRepo();
  repos.push(r);
  for (const [p, t] of Object.entries(files)) r.write(p, t);
  return r;
}

/** `git commit` as the user runs it: the repo's hooks run, with KVGATE_BIN standing in for npx. */
function commit(r: TempRepo, message: string, env: Record<string, string> = {}) {
  const res = spawnSync("git", ["-c", "commit.gpgsign=false", "commit", "-q", "-m", message], { cwd: r.dir, env: { ...GIT_ENV, NO_COLOR: "1", KVGATE_BIN, ...env }, encoding: "utf8" });
  return { code: res.status, out: res.stdout + res.stderr };
}

function headCount(r: TempRepo): number {
  const out = spawnSync("git", ["rev-list", "--count", "HEAD"], { cwd: r.dir, env: GIT_ENV, encoding: "utf8" });
  return out.status === 0 ? Number(out.stdout.trim()) : 0;
}

describe("hook files", () => {
  test("a new hook gets a shebang, the HUSKY=0 guard and the overridable command", () => {
    expect(mergeHook(null, "pre-commit")).toBe(
      "#!/usr/bin/env sh\n# kvgate (added by `kvgate init`): HUSKY=0 skips it; KVGATE_BIN overrides the command.\n" +
        '[ "${HUSKY-}" = "0" ] || ${KVGATE_BIN:-npx --no-install kvgate} check --staged || exit $?\n',
    );
    expect(HOOK_LINES["prepare-commit-msg"]).toBe('[ "${HUSKY-}" = "0" ] || ${KVGATE_BIN:-npx --no-install kvgate} hook prepare-commit-msg "$@" || exit $?');
  });
  test.each([
    ["npm test", "pre-commit", true],
    ["npx --no-install kvgate check --staged", "pre-commit", false],
    ["npx kvgate --staged", "pre-commit", false],
    ["npx kvgate check --all", "pre-commit", true],
    ['npx kvgate hook prepare-commit-msg "$@"', "prepare-commit-msg", false],
    ["npx kvgate check --staged", "prepare-commit-msg", true],
  ] as const)("existing %j in %s: append kvgate = %s", (line, hook, appends) => {
    const merged = mergeHook(line, hook);
    expect(merged !== null).toBe(appends);
    if (merged) {
      expect(merged.startsWith(line + "\n")).toBe(true);
      expect(hasKvgate(merged, hook)).toBe(true);
      expect(mergeHook(merged, hook)).toBeNull();
    }
  });
});

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

describe("kvgate init", () => {
  test("writes the hooks, the config and the workflow; a second run changes nothing", async () => {
    const r = await userRepo({ "scripts/r.env": GOOD, "scripts/voices.env": "ENGINE=vllm\nHOST=fv-ml1\nGPU=1\n" });
    const first = kvgate(["init"], { cwd: r.dir });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain("wrote     .husky/pre-commit");
    expect(first.stdout).toContain("set       git config core.hooksPath .husky");
    expect(first.stdout).toContain("wrote     kvgate.yaml (2 service files; 2 TODOs to fill in)");
    expect(r.git("config", "core.hooksPath").trim()).toBe(".husky");
    expect(statSync(join(r.dir, ".husky/pre-commit")).mode & 0o111).not.toBe(0);
    const cfg = parseConfig(readFileSync(join(r.dir, "kvgate.yaml"), "utf8"), "kvgate.yaml");
    expect(cfg.fleet?.hosts?.["fv-ml1"]?.gpus.map((g) => g.index)).toEqual([0, 1]);
    const wf = readFileSync(join(r.dir, ".github/workflows/kvgate.yml"), "utf8");
    expect(wf).toContain("fetch-depth: 0");
    expect(wf).toContain("uses: kvgate/kvgate@v");
    expect(wf).toContain("uses: github/codeql-action/upload-sarif@v3");
    expect(wf).toContain("branches: [\"main\"]");
    const before = ["kvgate.yaml", ".husky/pre-commit", ".husky/prepare-commit-msg", ".github/workflows/kvgate.yml"].map((p) => readFileSync(join(r.dir, p), "utf8"));
    const second = kvgate(["init", "--repo", r.dir], { cwd: tmpdir() });
    expect(second.code).toBe(0);
    expect(second.stdout).toContain("nothing to change: kvgate is already set up here");
    expect(["kvgate.yaml", ".husky/pre-commit", ".husky/prepare-commit-msg", ".github/workflows/kvgate.yml"].map((p) => readFileSync(join(r.dir, p), "utf8"))).toEqual(before);
  });

  test("keeps an existing kvgate.yaml and existing hook lines", async () => {
    const r = await userRepo({ "scripts/r.env": GOOD, "kvgate.yaml": "version: 1\n", ".husky/pre-commit": "npm test\n" });
    const out = kvgate(["init"], { cwd: r.dir });
    expect(out.stdout).toContain("kept      kvgate.yaml (never overwritten)");
    expect(out.stdout).toContain("appended  .husky/pre-commit (kept its lines, added kvgate's)");
    expect(readFileSync(join(r.dir, "kvgate.yaml"), "utf8")).toBe("version: 1\n");
    const hook = readFileSync(join(r.dir, ".husky/pre-commit"), "utf8");
    expect(hook.startsWith("npm test\n")).toBe(true);
    expect(hook.match(/check --staged/g)).toHaveLength(1);
  });

  test("with husky as a dependency, husky keeps core.hooksPath", async () => {
    const r = await userRepo({ "package.json": JSON.stringify({ devDependencies: { husky: "^9" } }) });
    const out = kvgate(["init"], { cwd: r.dir });
    expect(out.stdout).toContain("husky is a dependency: run `npx husky`");
    expect(spawnSync("git", ["config", "core.hooksPath"], { cwd: r.dir, env: GIT_ENV }).status).toBe(1);
    expect(existsSync(join(r.dir, ".husky/pre-commit"))).toBe(true);
  });

  test("outside a repository it says what to do (exit 2)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kvgate-norepo-"));
    try {
      const out = kvgate(["init"], { cwd: dir, env: { GIT_CEILING_DIRECTORIES: tmpdir() } });
      expect(out.code).toBe(2);
      expect(out.stderr).toContain("is not in a git repository");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the installed hooks on real commits", () => {
  async function initialised(): Promise<TempRepo> {
    const r = await userRepo();
    expect(kvgate(["init"], { cwd: r.dir }).code).toBe(0);
    r.stage();
    // The setup commit itself goes in with the hooks skipped, as `HUSKY=0 git commit` does.
    expect(commit(r, "kvgate init", { HUSKY: "0" }).code).toBe(0);
    return r;
  }

  test("a bad commit is refused with kvgate's message", async () => {
    const r = await initialised();
    r.write("scripts/r.env", BAD);
    r.stage();
    const res = commit(r, "r: pin the kv pool");
    expect(res.code).not.toBe(0);
    expect(res.out).toContain("engine/removed-flag");
    expect(res.out).toMatch(/scripts\/r\.env:5 error/);
    expect(res.out).toContain("REFUSED");
    expect(headCount(r)).toBe(1);
  });

  test("HUSKY=0 skips the gate", async () => {
    const r = await initialised();
    r.write("scripts/r.env", BAD);
    r.stage();
    const res = commit(r, "r: pin the kv pool", { HUSKY: "0" });
    expect(res.code, res.out).toBe(0);
    expect(headCount(r)).toBe(2);
  });

  test("a good commit passes both hooks (and gets the verdict trailer)", async () => {
    const r = await initialised();
    r.write("scripts/r.env", GOOD.replace("64", "96"));
    r.stage();
    const res = commit(r, "r: more headroom");
    expect(res.code, res.out).toBe(0);
    expect(headCount(r)).toBe(2);
    expect(r.git("log", "-1", "--format=%B")).toMatch(/Kvgate-Verdict: pass tree=[0-9a-f]+/);
  });
});
