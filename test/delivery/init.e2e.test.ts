// `kvgate init` in real temp repositories, then real `git commit`s through the hooks it installed:
// the starter config, and plain git (hooks chained, never dropped; the proof on a canary).
// husky, the pre-commit framework and a PATH without node: init-husky.e2e.test.ts.
import { describe, expect, test } from "vitest";
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GIT_ENV } from "../helpers/repo.js";
import { kvgate } from "../helpers/cli.js";
import { commitCount, gitCommit } from "../helpers/install.js";
import { BAD, expectRefused, GOOD, init, markingHook, RUNNER, scratch, setUp, useInitRepos, userRepo } from "../helpers/init-repo.js";
import { parseConfig } from "../../src/config/load.js";
import { hostsOf, starterConfig, type FoundService, type StarterInput } from "../../src/init/starter.js";
import { parseNvidiaSmi } from "../../src/init/inventory.js";

useInitRepos();

const found = (name: string, extra: Partial<FoundService> = {}): FoundService => ({
  name,
  file: `scripts/${name}.env`,
  engine: "vllm",
  recognisedBy: null,
  perSeat: true,
  host: null,
  gpus: [],
  ...extra,
});
const input = (services: FoundService[], extra: Partial<StarterInput> = {}): StarterInput => ({
  services,
  servicesGlob: null,
  deploys: [],
  notTaken: [],
  inventory: null,
  ...extra,
});

describe("starter kvgate.yaml", () => {
  test("without an inventory the card stanza is the TODO to fill, commented: no card size is guessed", () => {
    const services = [
      found("a", { host: "fv-ml1", gpus: [1] }),
      found("b", { engine: "radiance", perSeat: false, gpus: [0, 2] }),
      found("c", { host: "fv-ml1" }),
    ];
    expect([...hostsOf(services)]).toEqual([["fv-ml1", [0, 1, 2]]]);
    const text = starterConfig(input(services, { servicesGlob: "scripts/*.env" }));
    const cfg = parseConfig(text, "kvgate.yaml");
    expect(cfg).toEqual({ version: 1, services: "scripts/*.env" });
    expect(text).toContain("# fleet:   # TODO: the card inventory. Until it is filled in, the check refuses every seat as");
    expect(text.match(/^# {9}- \{ index: \d, total: <GiB> \}$/gm)).toEqual([
      "#         - { index: 0, total: <GiB> }",
      "#         - { index: 1, total: <GiB> }",
      "#         - { index: 2, total: <GiB> }",
    ]);
    expect(text).toContain("#     a: { pinned: 8GiB, by: <owner> }");
    expect(text).not.toContain("#     b:");
  });
  test("with the host's nvidia-smi output the inventory is written, each card's name beside it", () => {
    const cards = [
      { index: 0, name: "NVIDIA GeForce RTX 4090", totalMib: 24564 },
      { index: 1, name: "NVIDIA GeForce RTX 4090", totalMib: 24564 },
    ];
    const text = starterConfig(input([found("a", { host: "box" })], { inventory: { host: "box", cards, source: "nvidia-smi.csv" } }));
    const cfg = parseConfig(text, "kvgate.yaml");
    expect(cfg.fleet?.hosts?.box?.gpus).toEqual([
      { index: 0, total: "24564MiB" },
      { index: 1, total: "24564MiB" },
    ]);
    expect(text).toContain("    box:  # from nvidia-smi.csv");
    expect(text).toContain("- { index: 0, total: 24564MiB }  # NVIDIA GeForce RTX 4090");
  });
  test("two hosts and no HOST on a service: that service's cards are not guessed", () => {
    const services = [found("a", { host: "h1", gpus: [0] }), found("b", { host: "h2", gpus: [1] }), found("c", { gpus: [3] })];
    expect([...hostsOf(services)]).toEqual([
      ["h1", [0]],
      ["h2", [1]],
    ]);
    expect(() => parseConfig(starterConfig(input(services)), "kvgate.yaml")).not.toThrow();
  });
  test("no seat: a valid config that says so, the fleet left as a comment", () => {
    const text = starterConfig(input([]));
    expect(parseConfig(text, "kvgate.yaml")).toEqual({ version: 1 });
    expect(text).toContain("# No seat found");
    expect(text).toContain("# fleet:");
  });
  test("nvidia-smi's CSV, with and without header and units; a line that is not one is refused with its line", () => {
    const csv = "index, name, memory.total [MiB]\n0, NVIDIA A100-SXM4-80GB, 81920 MiB\n1, NVIDIA A100-SXM4-80GB, 81920 MiB\n";
    expect(parseNvidiaSmi(csv, "gpus.csv")).toEqual([
      { index: 0, name: "NVIDIA A100-SXM4-80GB", totalMib: 81920 },
      { index: 1, name: "NVIDIA A100-SXM4-80GB", totalMib: 81920 },
    ]);
    expect(parseNvidiaSmi("0, NVIDIA L4, 23034\n", "x")).toEqual([{ index: 0, name: "NVIDIA L4", totalMib: 23034 }]);
    expect(() => parseNvidiaSmi("index, name, memory.total [MiB]\nGPU 0: NVIDIA L4\n", "gpus.csv")).toThrow(
      /gpus\.csv:2: not an nvidia-smi line/,
    );
    expect(() => parseNvidiaSmi("index, name, memory.total [MiB]\n", "gpus.csv")).toThrow(/gpus\.csv: no GPU line/);
  });
});

describe("kvgate init, plain git", () => {
  test("installs into .git/hooks, proves them on a canary, writes the config and workflow; a second run changes nothing", async () => {
    const r = await userRepo({ "scripts/r.env": GOOD, "scripts/voices.env": "ENGINE=vllm\nHOST=fv-ml1\nGPU=1\n" });
    // The host's cards, as `nvidia-smi --query-gpu=index,name,memory.total --format=csv` printed them there.
    const csv = join(mkdtempSync(join(tmpdir(), "kvgate-gpus-")), "gpus.csv");
    writeFileSync(csv, "index, name, memory.total [MiB]\n0, NVIDIA H100 80GB HBM3, 81559 MiB\n1, NVIDIA H100 80GB HBM3, 81559 MiB\n");
    const first = kvgate(["init", "--from-host", csv], { cwd: r.dir });
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(first.stdout).toContain("hooks     plain git (.git/hooks)");
    expect(first.stdout).toContain("wrote     .git/hooks/pre-commit");
    expect(first.stdout).toContain("wrote     .git/hooks/prepare-commit-msg");
    expect(first.stdout).toMatch(/proved {4}pre-commit: the installed hook refused a canary commit .*secret\/github-token, exit 1/);
    expect(first.stdout).toContain('proved    prepare-commit-msg: the installed hook recorded "Kvgate-Verdict: not-run"');
    expect(first.stdout).toContain(`wrote     kvgate.yaml (2 seats found, services: "scripts/*.env"; 2 cards of fv-ml1 from ${csv})`);
    expect(first.stdout).toContain("added     node_modules/ to .gitignore");
    expect(spawnSync("git", ["config", "core.hooksPath"], { cwd: r.dir, env: GIT_ENV }).status).toBe(1);
    const hook = readFileSync(join(r.dir, ".git/hooks/pre-commit"), "utf8");
    expect(hook).toContain(`exec sh ${RUNNER} check --staged`);
    expect(hook).not.toContain("npx");
    expect(statSync(join(r.dir, ".git/hooks/pre-commit")).mode & 0o111).not.toBe(0);
    const cfg = parseConfig(readFileSync(join(r.dir, "kvgate.yaml"), "utf8"), "kvgate.yaml");
    expect(cfg.fleet?.hosts?.["fv-ml1"]?.gpus).toEqual([
      { index: 0, total: "81559MiB" },
      { index: 1, total: "81559MiB" },
    ]);
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
    expect(out.stdout).toContain(
      "chained   .git/hooks/pre-commit: the hook that was there now runs first, from .git/hooks/pre-commit.kvgate-chained; then kvgate",
    );
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
    expect(out.stdout).toContain(
      `fix: add to ${join(shared, "pre-commit")}: [ "\${HUSKY-}" = "0" ] || sh ${RUNNER} check --staged || exit $?`,
    );
    expect(readdirSync(shared)).toEqual([]);
  });

  test("a chained copy already in the way: refused, both files kept", async () => {
    const r = await userRepo();
    markingHook(r, ".git/hooks/pre-commit", "a");
    markingHook(r, ".git/hooks/pre-commit.kvgate-chained", "b");
    const out = init(r);
    expect(out.code).toBe(1);
    expect(out.stdout).toContain(".git/hooks/pre-commit is not kvgate's and .git/hooks/pre-commit.kvgate-chained already exists");
    expect(readFileSync(join(r.dir, ".git/hooks/pre-commit"), "utf8")).toContain('/a"');
  });

  test("hooks that do not refuse the canary: NOT LIVE, exit 1, with their output", async () => {
    // A kvgate.yaml that excludes the canary's file from the secret scan: the hook passes it.
    const r = await userRepo({
      "scripts/r.env": GOOD,
      "kvgate.yaml":
        'version: 1\nfleet: { hosts: { fv-ml1: { gpus: [{ index: 0, total: 96GiB }] } } }\nsecrets:\n  exclude: ["kvgate-canary.txt"]\n',
    });
    r.stage(); // the staged check reads the policy from the index
    const out = init(r);
    expect(out.code).toBe(1);
    expect(out.stdout).toMatch(/NOT LIVE {2}pre-commit: .* the installed hook let it through \(exit 0\)/);
    expect(out.stdout).toContain(
      "NOT LIVE: the kvgate hooks do not run on your commits yet: the installed hooks did not refuse the canary commit",
    );
    expect(out.stdout).toContain("| kvgate staged:");
  });

  test("an earlier init's .husky layout without husky (core.hooksPath=.husky, npx lines): updated in place", async () => {
    const old = (args: string) =>
      `#!/usr/bin/env sh\n# kvgate (added by \`kvgate init\`): HUSKY=0 skips it; KVGATE_BIN overrides the command.\n[ "\${HUSKY-}" = "0" ] || \${KVGATE_BIN:-npx --no-install kvgate} ${args} || exit $?\n`;
    const r = await userRepo({
      "scripts/r.env": GOOD,
      ".husky/pre-commit": old("check --staged"),
      ".husky/prepare-commit-msg": old('hook prepare-commit-msg "$@"'),
    });
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

describe("starter kvgate.yaml: found as the gate finds seats", () => {
  test("seats anywhere, named by an image in any *IMAGE variable; a UI's env file is not taken, and says why", async () => {
    const r = await userRepo({
      "deploy/voices.env": 'VLLM_IMAGE=vllm/vllm-openai:v0.8.5\nCUDA_VISIBLE_DEVICES=0\nVLLM_EXTRA_ARGS="--model Qwen/Qwen3-4B"\n',
      "deploy/frank.env": "ENGINE=radiance\nHOST=fv-ml1\nGPU=1\n",
      "deploy/webui.env": "WEBUI_IMAGE=ghcr.io/open-webui/open-webui:0.6.5\nPORT=3000\n",
    });
    const out = init(r);
    expect(out.code, out.stdout).toBe(0);
    expect(out.stdout).toContain('wrote     kvgate.yaml (2 seats found, services: "deploy/*.env"; no card inventory');
    expect(out.stdout).toContain("not taken deploy/webui.env: no engine signal");
    const text = readFileSync(join(r.dir, "kvgate.yaml"), "utf8");
    expect(text).toContain("#   voices (deploy/voices.env): engine vllm (by image), gpu 0");
    expect(text).toContain("#     voices: { pinned: 8GiB, by: <owner> }");
    expect(text).not.toContain("#     frank:");
  });
});
