// `kvgate init` with husky (live with no extra step), with a .pre-commit-config.yaml, and the hooks run
// with a PATH that has no node (what a GUI client gives them): real `git commit`s in temp repositories.
import { describe, expect, test } from "vitest";
import { spawnSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { GIT_ENV, type TempRepo } from "../helpers/repo.js";
import { ROOT } from "../helpers/cli.js";
import { addHusky, commitCount, FIXED_NODE_PLACES, gitCommit, pathWithoutNode } from "../helpers/install.js";
import { BAD, expectRefused, GOOD, hostCsv, init, RUNNER, scratch, setUp, useInitRepos, userRepo } from "../helpers/init-repo.js";

useInitRepos();

describe("kvgate init, husky", () => {
  test("husky installed: prepare added, husky run, live on exit; the very next commit is refused", async () => {
    const r = await userRepo();
    addHusky(r);
    // With the host's cards, so the gate can size the seat (without them the first commit is refused: unsized).
    const out = init(r, {}, ["--from-host", hostCsv()]);
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
    const r = await userRepo({
      "scripts/r.env": GOOD,
      "package.json": JSON.stringify({ devDependencies: { husky: "^8" }, scripts: { prepare: "husky install" } }),
      ".husky/_/husky.sh": "# husky 8's helper\n",
    });
    r.write(
      ".husky/pre-commit",
      `#!/usr/bin/env sh\n. "$(dirname -- "$0")/_/husky.sh"\n\necho husky8-user >> "${join(r.dir, "ran-user")}"\n`,
    );
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

describe("kvgate init, the pre-commit framework (the runs through pre-commit are in install.e2e.test.ts)", () => {
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
    for (const f of [
      "bin/kvgate.js",
      "bin/kvgate-hook",
      "bin/load-cli.cjs",
      "dist/cli.cjs",
      "dist/fast.cjs",
      "dist/compose-schema.cjs",
      "rules",
      "package.json",
    ])
      cpSync(join(ROOT, f), join(r.dir, "node_modules/kvgate", f), { recursive: true });
    const path = scratch("kvgate-path-");
    for (const tool of ["git", "sh"])
      symlinkSync(spawnSync("sh", ["-c", `command -v ${tool}`], { encoding: "utf8" }).stdout.trim(), join(path, tool));
    const res = spawnSync(process.execPath, [join(r.dir, "node_modules/kvgate/bin/kvgate.js"), "init"], {
      cwd: r.dir,
      env: { ...GIT_ENV, PATH: path },
      encoding: "utf8",
    });
    expect(res.status, res.stdout + res.stderr).toBe(1);
    expect(res.stdout).toContain(
      "appended  .pre-commit-config.yaml: a repo: local entry, hooks kvgate (stage commit) and kvgate-prepare-commit-msg, calling node_modules/kvgate/bin/kvgate-hook",
    );
    expect(res.stdout).toContain("NOT LIVE: the kvgate hooks do not run on your commits yet: pre-commit is not on PATH");
    expect(res.stdout).toContain("fix: pre-commit install -t pre-commit -t prepare-commit-msg");
    expect(readFileSync(join(r.dir, ".pre-commit-config.yaml"), "utf8")).toContain(
      "entry: sh node_modules/kvgate/bin/kvgate-hook check --staged",
    );
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
    return {
      PATH: pathWithoutNode(),
      HOME: home,
      XDG_CONFIG_HOME: undefined,
      NVM_DIR: undefined,
      VOLTA_HOME: undefined,
      FNM_DIR: undefined,
      ASDF_DATA_DIR: undefined,
      KVGATE_NODE: undefined,
      ...extra,
    };
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
      if (v === "v22.1.0")
        writeFileSync(join(home, ".nvm/versions/node", v, "bin/node"), "#!/bin/sh\necho decoy-node >&2\nexit 9\n", { mode: 0o755 });
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
