// The foundation's done-means, end to end: the built CLI in real temp repositories.
import { afterEach, describe, expect, test } from "vitest";
import { makeFolder, makeRepo, type TempFolder } from "../helpers/repo.js";
import { kvgate } from "../helpers/cli.js";

const made: TempFolder[] = [];
afterEach(async () => {
  for (const r of made.splice(0)) await r.cleanup();
});
async function repo() {
  const r = await makeRepo();
  made.push(r);
  return r;
}

const RADIANCE_BAD = 'ENGINE=radiance\nHOST=fv-ml2\nGPU=0\nSERVE_ARGS="--vram-kv-mib 4096"\n';
// The card the seat runs on: without an inventory a new seat is unsized (fleet/unsized).
const CARDS = "fleet:\n  hosts:\n    fv-ml2: { gpus: [ { index: 0, total: 96GiB }, { index: 1, total: 96GiB } ] }\n";

describe("kvgate check --staged", () => {
  test("a removed radiance flag is refused at its line, in text and JSON", async () => {
    const r = await repo();
    r.write("README.md", "fleet\n");
    r.write("kvgate.yaml", CARDS);
    r.stage();
    r.commit("init");
    r.write("scripts/x.env", RADIANCE_BAD);
    r.stage();
    const text = kvgate(["check", "--staged"], { cwd: r.dir });
    expect(text.code).toBe(1);
    expect(text.stdout).toContain("scripts/x.env:4 error engine/removed-flag x: --vram-kv-mib was removed in radiance 1.8.1");
    expect(text.stdout.trim().split("\n").at(-1)).toMatch(/^kvgate staged: 1 error, .* — REFUSED$/);
    expect(text.stdout).toContain("`kvgate explain <service>` shows the arithmetic");
    const json = kvgate(["check", "--staged", "--format", "json"], { cwd: r.dir });
    expect(json.code).toBe(1);
    const doc = JSON.parse(json.stdout);
    expect(Object.keys(doc)).toEqual(["tool", "version", "mode", "verdict", "counts", "coverage", "findings"]);
    expect(doc.coverage).toEqual({ sized: 1, cards: 1, not_engines: [], unsized: [] });
    expect(doc).toMatchObject({ tool: "kvgate", version: "0.1.0", mode: "staged", verdict: "fail", counts: { error: 1, warning: 0 } });
    const f = doc.findings.find((x: { rule: string }) => x.rule === "engine/removed-flag");
    expect(f).toMatchObject({ severity: "error", status: "open", file: "scripts/x.env", line: 4, service: "x", commit: null });
    expect(Object.keys(f).slice(0, 10)).toEqual([
      "rule",
      "severity",
      "status",
      "message",
      "file",
      "line",
      "service",
      "commit",
      "fingerprint",
      "data",
    ]);
  });

  test("a clean staged change exits 0 with one line", async () => {
    const r = await repo();
    // An engine kvgate does not know that holds no GPU: nothing to size (with GPU= it is engine/unknown).
    r.write("scripts/x.env", "ENGINE=tgi\nHOST=fv-ml2\nPORT=8080\n");
    r.stage();
    const run = kvgate(["check"], { cwd: r.dir });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      "kvgate staged: pass (1 file checked, no findings); 0 seats sized on 0 cards; 1 service not an engine (x); 0 unsized\n",
    );
  });

  test("--fail-on warning refuses a warning; never passes an error", async () => {
    const r = await repo();
    r.write("scripts/x.env", "A=1\nA=2\n");
    r.stage();
    expect(kvgate(["check"], { cwd: r.dir }).code).toBe(0);
    expect(kvgate(["check", "--fail-on", "warning"], { cwd: r.dir }).code).toBe(1);
    r.write("scripts/x.env", RADIANCE_BAD);
    r.stage();
    expect(kvgate(["check", "--fail-on", "never"], { cwd: r.dir }).code).toBe(0);
  });

  test("a broken kvgate.yaml exits 2 listing every problem", async () => {
    const r = await repo();
    r.write("kvgate.yaml", "kv:\n  factor: lots\n  round: 9 gigs\nunknown_key: 1\n");
    r.write("scripts/x.env", "ENGINE=vllm\n");
    r.stage();
    const run = kvgate(["check", "--staged"], { cwd: r.dir });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(/kvgate\.yaml has 3 problems/);
    expect(run.stderr).toMatch(/kv\.factor: .*expected number.*\(kvgate\.yaml:2\)/);
    expect(run.stderr).toMatch(/kv\.round: .*\(kvgate\.yaml:3\)/);
    expect(run.stderr).toMatch(/unknown key "unknown_key"/);
  });

  test("--config FILE replaces the repo's policy", async () => {
    const r = await repo();
    // The repository's policy knows the card; the file given by --config does not (fleet/unsized).
    r.write("kvgate.yaml", CARDS);
    r.write("policy.yaml", 'services: "svc/*.env"\n');
    r.stage();
    r.commit("policies");
    r.write("svc/x.env", "ENGINE=radiance\nHOST=fv-ml2\nGPU=1\n");
    r.stage();
    expect(kvgate(["check"], { cwd: r.dir }).code).toBe(0);
    const given = kvgate(["check", "--config", "policy.yaml"], { cwd: r.dir });
    expect([given.code, given.stdout]).toEqual([1, expect.stringContaining("fleet/unsized x: not sized")]);
    const missing = kvgate(["check", "--config", "nope.yaml"], { cwd: r.dir });
    expect([missing.code, missing.stderr]).toEqual([2, expect.stringMatching(/cannot read --config nope\.yaml: ENOENT/)]);
  });
});

describe("usage and errors", () => {
  test.each([
    [["check", "--bogus"], /Unknown option '--bogus'/],
    [["check", "--staged", "--all"], /choose one of --staged, --all/],
    [["check", "--format", "xml"], /--format must be one of text, json, sarif, github/],
    [["check", "--unit", "range"], /--unit goes with --range/],
    [["check", "--range", "main"], /--range takes A\.\.B/],
    [["frobnicate"], /unknown command "frobnicate"/],
  ])("%j is a usage error (exit 2) with the usage line", async (args, message) => {
    const dir = await makeFolder();
    made.push(dir);
    const run = kvgate(args, { cwd: dir.dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).toMatch(/usage: kvgate check/);
  });
  test("an audit usage error prints audit's usage line", async () => {
    const dir = await makeFolder();
    made.push(dir);
    const run = kvgate(["audit", "--format", "sarif"], { cwd: dir.dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/audit needs --range A\.\.B/);
    expect(run.stderr).toMatch(/usage: kvgate audit --range A\.\.B/);
  });
  test("--help and --version", async () => {
    const dir = await makeFolder();
    made.push(dir);
    expect(kvgate(["--help"], { cwd: dir.dir }).stdout).toMatch(/^usage: kvgate <command>/);
    expect(kvgate(["--version"], { cwd: dir.dir }).stdout).toBe("kvgate 0.1.0\n");
  });
  test("--staged outside a repository exits 2 with the fix", async () => {
    const dir = await makeFolder();
    made.push(dir);
    const run = kvgate(["check", "--staged"], { cwd: dir.dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/not in a git repository/);
    expect(run.stderr).toMatch(/fix: /);
  });
  test("--all works on a plain folder", async () => {
    const dir = await makeFolder();
    made.push(dir);
    dir.write("scripts/x.env", RADIANCE_BAD);
    const run = kvgate(["check", "--all", "--format", "json"], { cwd: dir.dir });
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout).findings.map((f: { rule: string; line: number }) => [f.rule, f.line])).toContainEqual([
      "engine/removed-flag",
      4,
    ]);
  });
  test("an injected internal error exits 2, never 0", async () => {
    const r = await repo();
    r.write("scripts/x.env", "A=1\n");
    r.stage();
    const run = kvgate(["check"], { cwd: r.dir, env: { KVGATE_TEST_FAULT: "engine" } });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/internal error: injected fault/);
    expect(run.stderr).toMatch(/failed closed/);
  });
});
