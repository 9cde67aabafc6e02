// Every bad input, end to end through the built CLI: each ends in a finding (exit 1) or in exit 2 with
// the fix, never in exit 0 by accident (issue 8, item 3).
import { afterEach, describe, expect, test } from "vitest";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeFolder, makeRepo, type TempFolder, type TempRepo } from "../helpers/repo.js";
import { BIN, kvgate } from "../helpers/cli.js";

const made: TempFolder[] = [];
afterEach(async () => {
  for (const r of made.splice(0)) await r.cleanup();
});
async function repo(): Promise<TempRepo> {
  const r = await makeRepo();
  made.push(r);
  return r;
}
async function folder(): Promise<TempFolder> {
  const f = await makeFolder();
  made.push(f);
  return f;
}

const IS_ROOT = process.getuid?.() === 0;
const RADIANCE_BAD = 'ENGINE=radiance\nHOST=fv-ml2\nGPU=0\nSERVE_ARGS="--vram-kv-mib 4096"\n';
const REMOVED_FLAG = /scripts\/x\.env:4 error engine\/removed-flag x: --vram-kv-mib was removed/;
const FLEET =
  "fleet:\n  hosts:\n    fv-ml1:\n      gpus:\n        - { index: 0, total: 96GiB, reserve: 1GiB }\n        - { index: 1, total: 96GiB, reserve: 1GiB }\n";
const vllm = (lines: string) => `ENGINE=vllm\nMODEL=Qwen/Qwen3-8B\nKV_CACHE_MEMORY_BYTES=8GiB\n${lines}`;

function stagedCheck(r: TempRepo, env: Record<string, string> = {}) {
  return kvgate(["check", "--staged"], { cwd: r.dir, env });
}

/** A fail-closed exit: 2, nothing on stdout that looks like a pass, the problem and a fix on stderr. */
function expectExit2(run: ReturnType<typeof kvgate>, problem: RegExp, fix?: RegExp): void {
  expect(run.code, run.stdout + run.stderr).toBe(2);
  expect(run.stdout).not.toMatch(/pass/);
  expect(run.stderr).toMatch(problem);
  if (fix) expect(run.stderr).toMatch(fix);
}

describe("unreadable files", () => {
  test("--config naming a directory: exit 2 with the fix", async () => {
    const r = await repo();
    r.write("scripts/x.env", RADIANCE_BAD);
    r.stage();
    mkdirSync(join(r.dir, "policy.yaml"));
    expectExit2(
      kvgate(["check", "--config", "policy.yaml"], { cwd: r.dir }),
      /cannot read --config policy\.yaml: EISDIR/,
      /fix: name an existing kvgate\.yaml/,
    );
  });

  test.skipIf(IS_ROOT)("--config chmod 000: exit 2 with the fix (skipped as root: chmod does not stop root's reads)", async () => {
    const r = await repo();
    r.write("policy.yaml", "kv: { factor: 2 }\n");
    chmodSync(join(r.dir, "policy.yaml"), 0o000);
    expectExit2(kvgate(["check", "--config", "policy.yaml"], { cwd: r.dir }), /cannot read --config policy\.yaml: EACCES/, /fix:/);
  });

  test.each([
    ["kvgate.yaml in the tree", "kvgate.yaml", [] as string[], /kvgate\.yaml cannot be read: the file is not valid UTF-8/],
    ["--config FILE", "policy.yaml", ["--config", "policy.yaml"], /policy\.yaml cannot be read: the file is not valid UTF-8/],
  ])("a config that is not UTF-8 (%s): exit 2 naming it, never the defaults", async (_where, path, args, problem) => {
    const r = await repo();
    r.write("scripts/x.env", RADIANCE_BAD);
    r.write(path, Buffer.concat([Buffer.from("kv: { factor: 2 }\n# "), Buffer.from([0xff, 0xfe]), Buffer.from("\n")]));
    r.stage();
    expectExit2(kvgate(["check", "--staged", ...args], { cwd: r.dir }), problem, /fix: save .* as UTF-8 text/);
  });

  // Root reads through chmod 000, so the CLI runs as `nobody` (uid 65534) here, where chmod holds.
  function asUnprivileged(dir: string, args: string[]) {
    const r = spawnSync(process.execPath, [BIN, ...args], {
      cwd: dir,
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", NO_COLOR: "1", HOME: dir },
      ...(IS_ROOT ? { uid: 65534, gid: 65534 } : {}),
    });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  }
  async function readableFolder(): Promise<TempFolder> {
    const f = await folder();
    f.write("scripts/x.env", RADIANCE_BAD);
    chmodSync(f.dir, 0o755);
    chmodSync(join(f.dir, "scripts"), 0o755);
    chmodSync(join(f.dir, "scripts/x.env"), 0o644);
    return f;
  }

  test("the unprivileged run reads a readable folder (so the cases below test the unreadable file, not the setup)", async () => {
    const f = await readableFolder();
    const run = asUnprivileged(f.dir, ["check", "--all"]);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toMatch(REMOVED_FLAG);
  });

  // BUG (src/git/snapshots.ts diskSnapshot.read: `readFile(...).catch(() => null)`): an env file that
  // cannot be read is dropped silently and `--all` passes: "kvgate all: pass (0 files checked, no findings)".
  test("check --all with an env file that cannot be read is not a pass", async () => {
    const f = await readableFolder();
    chmodSync(join(f.dir, "scripts/x.env"), 0o000);
    const run = asUnprivileged(f.dir, ["check", "--all"]);
    expect(run.code, run.stdout + run.stderr).not.toBe(0);
    expect(run.stdout + run.stderr).toMatch(/scripts\/x\.env.*(cannot be read|cannot read|EACCES|permission)/i);
  });

  // BUG (same place): an unreadable kvgate.yaml is treated as no config, so the defaults apply
  // silently (a fleet's stricter policy is lost). Expected: exit 2 naming the file.
  test("check --all with a kvgate.yaml that cannot be read exits 2", async () => {
    const f = await readableFolder();
    f.write("kvgate.yaml", "kv: { factor: 3 }\n");
    chmodSync(join(f.dir, "kvgate.yaml"), 0o000);
    const run = asUnprivileged(f.dir, ["check", "--all"]);
    expectExit2(run, /kvgate\.yaml/);
  });

  // --all reads the tree a chunk at a time (256 files), as the secret scan asks for them: a note in the
  // second chunk that cannot be read stops the run there, as it did when the tree was read up front.
  test("check --all with a file outside the fleet that cannot be read, past the first chunk: exit 2 naming it", async () => {
    const f = await readableFolder();
    for (let i = 0; i < 300; i++) f.write(`docs/n${String(i).padStart(3, "0")}.md`, `note ${i}\n`);
    chmodSync(join(f.dir, "docs"), 0o755);
    chmodSync(join(f.dir, "docs/n299.md"), 0o000);
    expectExit2(
      asUnprivileged(f.dir, ["check", "--all"]),
      /docs\/n299\.md cannot be read: EACCES \(permission denied\)/,
      /fix: make docs\/n299\.md readable/,
    );
  });
});

describe("bytes that are not an env file", () => {
  test("non-UTF-8 bytes: env/parse telling to save as UTF-8", async () => {
    const r = await repo();
    r.write("scripts/x.env", Buffer.concat([Buffer.from("ENGINE=vllm\nMAX_MODEL_LEN="), Buffer.from([0xff, 0xfe]), Buffer.from("4096\n")]));
    r.stage();
    const run = stagedCheck(r);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/scripts\/x\.env:1 error env\/parse the file is not valid UTF-8; save it as UTF-8/);
  });

  test("a NUL byte: env/parse (binary) and the secret scanner's notice", async () => {
    const r = await repo();
    r.write("scripts/x.env", Buffer.from("ENGINE=vllm\nMAX_MODEL_LEN=40\u000096\n", "utf8"));
    r.stage();
    const run = stagedCheck(r);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      /scripts\/x\.env:1 error env\/parse the file holds a NUL byte: it is binary, not an env file; restore it as text/,
    );
    expect(run.stdout).toMatch(/scripts\/x\.env notice secret\/skipped not scanned for secrets: binary file/);
  });

  test("a 50 MB staged one-line file is scanned (streamed), in reasonable time; a bad env file still refuses", async () => {
    const r = await repo();
    r.write("big.txt", Buffer.alloc(50 * 1024 * 1024, "a"));
    r.write("scripts/x.env", RADIANCE_BAD);
    r.stage();
    const t0 = Date.now();
    const run = stagedCheck(r);
    expect(Date.now() - t0).toBeLessThan(20_000);
    expect(run.code).toBe(1);
    expect(run.stdout).not.toMatch(/big\.txt/);
    expect(run.stdout).toMatch(REMOVED_FLAG);
  });
});

describe("hostile YAML", () => {
  const bomb = (indent: string) =>
    [
      `${indent}a: &a ["x","x","x","x","x","x","x","x","x"]`,
      ..."bcdefghij".split("").map((c, i) => `${indent}${c}: &${c} [${Array(9).fill(`*${"abcdefghij"[i]}`).join(",")}]`),
    ].join("\n") + "\n";

  test("an alias bomb in kvgate.yaml: exit 2, fast", async () => {
    const r = await repo();
    r.write("kvgate.yaml", bomb(""));
    r.write("scripts/x.env", RADIANCE_BAD);
    r.stage();
    const t0 = Date.now();
    expectExit2(stagedCheck(r), /kvgate\.yaml is not valid YAML\n.*Excessive alias count/, /fix: fix the YAML syntax/);
    expect(Date.now() - t0).toBeLessThan(10_000);
  });

  test("an alias bomb in a playbook: playbook/parse, fast", async () => {
    const r = await repo();
    r.write("scripts/x.env", RADIANCE_BAD);
    r.write(
      "playbooks/deploy.yml",
      `- hosts: all\n  vars:\n${bomb("    ")}  tasks:\n    - lineinfile: { path: /opt/scripts/x.env, line: "MAX_MODEL_LEN={{ j }}" }\n`,
    );
    r.stage();
    const t0 = Date.now();
    const run = stagedCheck(r);
    expect(Date.now() - t0).toBeLessThan(15_000);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/playbooks\/deploy\.yml:\d+ error playbook\/parse .*alias bomb/);
  });

  test("10,000 levels of [ in kvgate.yaml: exit 2 with one line saying it is nested too deeply", async () => {
    const r = await repo();
    r.write("kvgate.yaml", `${"[".repeat(10_000)}\n`);
    r.write("scripts/x.env", RADIANCE_BAD);
    r.stage();
    const run = stagedCheck(r);
    expectExit2(run, /kvgate\.yaml is not valid YAML\n {2}kvgate\.yaml:1: nested too deeply/, /fix:/);
    expect(run.stderr.split("\n").length).toBeLessThan(15);
  });

  test("a deeply nested playbook: playbook/parse naming the nesting", async () => {
    const r = await repo();
    r.write("scripts/x.env", RADIANCE_BAD);
    const blocks = Array.from({ length: 200 }, (_, i) => `${"  ".repeat(i + 2)}- block:`).join("\n");
    r.write(
      "playbooks/deep.yml",
      `- hosts: all\n  tasks:\n${blocks}\n${"  ".repeat(202)}- lineinfile: { path: /opt/scripts/x.env, line: "A=1" }\n`,
    );
    r.write("playbooks/brackets.yml", `- hosts: all\n  vars:\n    x: ${"[".repeat(10_000)}\n`);
    r.stage();
    const run = stagedCheck(r);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/playbooks\/deep\.yml:\d+ error playbook\/parse .*nested more than 100 levels/);
    expect(run.stdout).toMatch(/playbooks\/brackets\.yml:\d+ error playbook\/parse .*nested too deeply/);
    expect(run.stdout.match(/brackets\.yml:\d+ error/g)?.length).toBe(1);
  });

  test.each([
    ["a list", "- a\n- b\n", "array"],
    ["a string", "hello\n", "string"],
    ["a number", "42\n", "number"],
  ])("a kvgate.yaml that is %s: exit 2 naming the type", async (_, text, type) => {
    const r = await repo();
    r.write("kvgate.yaml", text);
    r.write("scripts/x.env", RADIANCE_BAD);
    r.stage();
    expectExit2(
      stagedCheck(r),
      new RegExp(`kvgate\\.yaml has 1 problem\\n  \\(top level\\): .*expected object, received ${type} \\(kvgate\\.yaml:1\\)`),
      /fix: fix each key listed/,
    );
  });
});

describe("values that mean the wrong thing", () => {
  test.each(["22GB", "22GiB"])("--kv-cache-memory-bytes %s: engine/bad-value naming the forms vLLM accepts", async (value) => {
    const r = await repo();
    r.write("kvgate.yaml", FLEET);
    r.write(
      "scripts/x.env",
      `ENGINE=vllm\nMODEL=Qwen/Qwen3-8B\nGPU=0\nMAX_MODEL_LEN=40960\nSERVE_ARGS="--kv-cache-memory-bytes ${value}"\n`,
    );
    r.stage();
    const run = stagedCheck(r);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      `scripts/x.env:5 error engine/bad-value x: --kv-cache-memory-bytes: "${value}" is not a value vLLM accepts: use a plain integer, or a number with k/m/g/t (×1000) or an integer with K/M/G/T (×1024), e.g. 23622320128, 22G, 32K`,
    );
  });

  test.each(["-4096", "4096.5"])("MAX_MODEL_LEN=%s: engine/bad-value asking for a whole number", async (value) => {
    const r = await repo();
    r.write("kvgate.yaml", FLEET);
    r.write("scripts/x.env", vllm(`GPU=0\nMAX_MODEL_LEN=${value}\n`));
    r.stage();
    const run = stagedCheck(r);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      `scripts/x.env:5 error engine/bad-value x: MAX_MODEL_LEN: "${value}" is not a token count: use a whole number (40960) or vLLM's 32k / 32K`,
    );
  });

  test("GPU=3 on a 2-card host: fleet/unknown-card", async () => {
    const r = await repo();
    r.write("kvgate.yaml", FLEET);
    r.write("scripts/x.env", vllm("GPU=3\nMAX_MODEL_LEN=4096\n"));
    r.stage();
    const run = stagedCheck(r);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      "scripts/x.env:4 error fleet/unknown-card x: GPU 3 is not a card of fv-ml1 (cards: 0, 1); fix GPU or add the card to fleet.hosts.fv-ml1.gpus",
    );
  });

  test("HOST naming a host not in the inventory: fleet/unknown-host", async () => {
    const r = await repo();
    r.write("kvgate.yaml", FLEET);
    r.write("scripts/x.env", vllm("HOST=fv-ml9\nGPU=0\nMAX_MODEL_LEN=4096\n"));
    r.stage();
    const run = stagedCheck(r);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      "scripts/x.env:4 error fleet/unknown-host x: HOST=fv-ml9 is not in fleet.hosts (fv-ml1); fix HOST or add the host to kvgate.yaml",
    );
  });
});

describe("git in a bad state", () => {
  // Exit 2 saying that git is needed and how to get it (install git / put it on PATH).
  test("git missing from PATH: exit 2 saying git is needed", async () => {
    const r = await repo();
    r.write("scripts/x.env", RADIANCE_BAD);
    r.stage();
    const bin = join(r.dir, ".nodeonly");
    mkdirSync(bin);
    symlinkSync(process.execPath, join(bin, "node"));
    const run = kvgate(["check", "--staged"], { cwd: r.dir, env: { PATH: bin } });
    expectExit2(run, /git/, /fix: .*(install git|git .*PATH|PATH)/i);
    expect(run.stderr).toMatch(/needs git|git is (needed|required|not installed|not found)/i);
  });

  // BUG (src/git/repo.ts: the staged verdict is keyed by `git write-tree`, which takes the index lock):
  // with .git/index.lock present, check --staged exits 2 "git write-tree failed: ... index.lock': File
  // exists." and reports nothing. Reading the index does not need the lock; the findings should come out.
  test("a locked index: the staged findings are still reported (reading does not need the lock)", async () => {
    const r = await repo();
    r.write("scripts/x.env", RADIANCE_BAD);
    r.stage();
    writeFileSync(join(r.dir, ".git", "index.lock"), "");
    const run = stagedCheck(r);
    expect(run.code, run.stderr).not.toBe(0);
    expect(run.stdout).toMatch(REMOVED_FLAG);
    expect(run.code).toBe(1);
  });

  test("a locked index never passes by accident", async () => {
    const r = await repo();
    r.write("scripts/x.env", RADIANCE_BAD);
    r.stage();
    writeFileSync(join(r.dir, ".git", "index.lock"), "");
    const run = stagedCheck(r);
    expect([1, 2]).toContain(run.code);
    if (run.code === 2) expect(run.stderr).toMatch(/index\.lock/);
  });

  function corrupt(r: TempRepo, oid: string): void {
    const path = join(r.dir, ".git", "objects", oid.slice(0, 2), oid.slice(2));
    chmodSync(path, 0o644);
    writeFileSync(path, "not a zlib stream");
    expect(readFileSync(path, "utf8")).toBe("not a zlib stream");
  }

  // BUG (the staged-blob read, src/git/catfile.ts / src/git/changes.ts): a corrupt staged blob is read as
  // nothing and the check PASSES: "kvgate staged: pass (1 file checked, no findings)", exit 0.
  test("a corrupt staged blob: exit 2 naming the problem", async () => {
    const r = await repo();
    r.write("scripts/x.env", RADIANCE_BAD);
    r.stage();
    corrupt(r, r.git("rev-parse", ":scripts/x.env").trim());
    expectExit2(stagedCheck(r), /(corrupt|inflate|object|cannot read)/i);
  });

  test("a corrupt committed blob under a staged change: exit 2 naming the problem", async () => {
    const r = await repo();
    r.write("scripts/x.env", "ENGINE=radiance\n");
    r.stage();
    r.commit("init");
    const oid = r.git("rev-parse", "HEAD:scripts/x.env").trim();
    r.write("scripts/x.env", RADIANCE_BAD);
    r.stage();
    corrupt(r, oid);
    expectExit2(
      stagedCheck(r),
      /the repository is corrupt: object [0-9a-f]{40} for scripts\/x\.env cannot be read; run git fsck/,
      /fix: check the repository with `git fsck`/,
    );
  });

  test("an empty repository with nothing staged: exit 0, no findings", async () => {
    const r = await repo();
    const run = stagedCheck(r);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("kvgate staged: pass (0 files checked, no findings)\n");
  });

  test("an empty repository with a bad file staged: exit 1", async () => {
    const r = await repo();
    r.write("scripts/x.env", RADIANCE_BAD);
    r.stage();
    const run = stagedCheck(r);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(REMOVED_FLAG);
  });
});

test("an injected internal error exits 2 and says the gate failed closed", async () => {
  const r = await repo();
  // An engine kvgate does not know, holding no GPU: nothing to size, a clean pass (engine/unknown otherwise).
  r.write("scripts/x.env", "ENGINE=tgi\nHOST=fv-ml2\n");
  r.stage();
  expect(stagedCheck(r).code).toBe(0);
  const run = stagedCheck(r, { KVGATE_TEST_FAULT: "engine" });
  expectExit2(
    run,
    /kvgate: internal error: injected fault \(KVGATE_TEST_FAULT=engine\)/,
    /the gate failed closed \(exit 2\); rerun with KVGATE_DEBUG=1/,
  );
  expect(run.stdout).toBe("");
});
