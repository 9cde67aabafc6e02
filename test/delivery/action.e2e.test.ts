// The committed Action bundle, run as GitHub runs it, against real repositories: full clones,
// a depth-1 clone that must be deepened, pull_request and push payloads.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { readFileSync, existsSync } from "node:fs";
import { makeRepo, type TempRepo } from "../helpers/repo.js";
import { runAction } from "./action-env.js";
import { sarifErrors } from "./sarif-schema.js";
import { secretFingerprint } from "../../src/secrets/redact.js";

const CONFIG = "fleet:\n  hosts:\n    h:\n      gpus:\n        - { index: 0, total: 96GiB }\n";
const GOOD = "ENGINE=radiance\nHOST=h\nGPU=0\nGPU_HEADROOM_MIB=64\n";
const BAD = 'ENGINE=radiance\nHOST=h\nGPU=0\nGPU_HEADROOM_MIB=64\nSERVE_ARGS="--vram-kv-mib 4096"\n';

let origin: TempRepo;
const sha: Record<string, string> = {};
const temp: TempRepo[] = [];

// main:     A (config + env) ── B ── M1..M60 (unrelated commits: the base moved on)
// bad:           B ── X (adds the removed radiance flag)
// good:          B ── G1 (a comment) ── G2 (headroom 64 → 96)
// loosen:        B ── L (lowers the headroom floor in kvgate.yaml and the headroom with it)
beforeAll(async () => {
  origin = await makeRepo();
  origin.write("kvgate.yaml", CONFIG);
  origin.write("scripts/r.env", GOOD);
  origin.stage();
  sha.A = origin.commit("fleet");
  origin.write("README.md", "fleet\n");
  origin.stage();
  sha.B = origin.commit("readme");

  origin.git("checkout", "-q", "-b", "bad");
  origin.write("scripts/r.env", BAD);
  origin.stage();
  sha.X = origin.commit("r: pin the kv pool");

  origin.git("checkout", "-q", "-b", "good", sha.B);
  origin.write("scripts/r.env", GOOD + "# tuned\n");
  origin.stage();
  sha.G1 = origin.commit("r: note");
  origin.write("scripts/r.env", GOOD.replace("64", "96") + "# tuned\n");
  origin.stage();
  sha.G2 = origin.commit("r: more headroom");

  origin.git("checkout", "-q", "-b", "loosen", sha.B);
  origin.write("kvgate.yaml", CONFIG + "radiance: { headroom_floor_mib: 8 }\n");
  origin.write("scripts/r.env", GOOD.replace("64", "16"));
  origin.stage();
  sha.L = origin.commit("r: less headroom, and a lower floor");

  origin.git("checkout", "-q", "-b", "leak", sha.B);
  // A made-up key in the AWS access key id shape (not a listed placeholder).
  origin.write("notes/creds.txt", `aws_access_key_id = AKIA${"Z7Q3K5M2P6R4T6W5"}\n`);
  origin.stage();
  sha.K = origin.commit("notes", { noVerify: true });

  // A pull request that accepts its own key in .kvgateignore.
  origin.git("checkout", "-q", "-b", "accept", sha.B);
  origin.write("notes/creds.txt", `aws_access_key_id = AKIA${"Z7Q3K5M2P6R4T6W5"}\n`);
  origin.write(".kvgateignore", `${secretFingerprint(`AKIA${"Z7Q3K5M2P6R4T6W5"}`)} # mine @me\n`);
  origin.stage();
  sha.I = origin.commit("accept my key", { noVerify: true });

  origin.git("checkout", "-q", "main");
  for (let i = 1; i <= 60; i++) origin.commit(`main ${i}`, { allowEmpty: true });
  sha.M = origin.git("rev-parse", "HEAD").trim();
});

afterAll(async () => {
  for (const r of temp) await r.cleanup();
  await origin?.cleanup();
});

function clone(args: string[] = []): TempRepo {
  const c = origin.clone(args);
  temp.push(c);
  return c;
}

const pr = (head: string, base = sha.M!) => ({
  action: "synchronize",
  number: 7,
  pull_request: { number: 7, base: { ref: "main", sha: base }, head: { ref: "topic", sha: head } },
  repository: { default_branch: "main", full_name: "acme/fleet" },
});

describe("pull_request", () => {
  test("a full clone refuses the removed radiance flag: annotation, outputs, summary, SARIF", () => {
    const ws = clone();
    const r = runAction({
      workspace: ws.dir,
      event: "pull_request",
      payload: pr(sha.X!),
      inputs: { sarif: "out/kvgate.sarif", "fail-on": "error" },
    });
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.outputs).toMatchObject({ verdict: "fail", errors: "1", warnings: "0" });
    const a = r.annotations.filter((x) => x.props.title === "engine/removed-flag");
    expect(a.map((x) => [x.level, x.props.file, x.props.line])).toEqual([["error", "scripts/r.env", "5"]]);
    expect(r.stdout).toMatch(/^::error title=engine\/removed-flag,file=scripts\/r\.env,line=5::/m);
    expect(r.stdout).toMatch(/::error::kvgate refused/);
    expect(r.summary).toContain("## ❌ kvgate: refused");
    expect(r.summary).toMatch(
      /\| error \| \[`engine\/removed-flag`\]\(https:\/\/\S+\/docs\/rules\/engine-removed-flag\.md\) \| `scripts\/r\.env:5` \|/,
    );
    expect(r.summary).toContain("### GPU memory per card");
    expect(r.summary).toContain("| h | 0 | 96 GiB | 0 B | — | — | r (radiance) |");
    expect(r.outputs["sarif-file"]).toBe(`${ws.dir}/out/kvgate.sarif`);
    const log = JSON.parse(readFileSync(`${ws.dir}/out/kvgate.sarif`, "utf8"));
    expect(sarifErrors(log)).toEqual([]);
    expect(log.runs[0].results.map((x: any) => [x.ruleId, x.locations[0].physicalLocation.region.startLine])).toEqual([
      ["engine/removed-flag", 5],
    ]);
  });

  test("a clean pull request of two commits passes", () => {
    const ws = clone();
    const r = runAction({ workspace: ws.dir, event: "pull_request", payload: pr(sha.G2!) });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.outputs).toMatchObject({ verdict: "pass", errors: "0", warnings: "0", "sarif-file": "" });
    expect(r.annotations).toEqual([]);
    expect(r.summary).toContain("## ✅ kvgate: pass");
    expect(r.stdout).toContain(`merge base of ${sha.M!.slice(0, 12)} and ${sha.G2!.slice(0, 12)}`);
  });

  test("a depth-1 clone is fetched and deepened until the merge base is there, then gated", () => {
    const ws = clone(["--depth", "1"]);
    expect(ws.git("rev-parse", "--is-shallow-repository").trim()).toBe("true");
    const r = runAction({ workspace: ws.dir, event: "pull_request", payload: pr(sha.X!), inputs: { sarif: "kvgate.sarif" } });
    expect(r.stdout).toContain(`fetching ${sha.X!.slice(0, 12)}`);
    expect(r.stdout).toMatch(/no merge base in this clone; deepening by \d+ commits/);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.outputs).toMatchObject({ verdict: "fail", errors: "1" });
    expect(r.annotations.map((x) => [x.level, x.props.title, x.props.file, x.props.line])).toContainEqual([
      "error",
      "engine/removed-flag",
      "scripts/r.env",
      "5",
    ]);
    expect(sarifErrors(JSON.parse(readFileSync(`${ws.dir}/kvgate.sarif`, "utf8")))).toEqual([]);
  });

  test("a depth-1 clone without a reachable base fails the step with the fix, never passes", () => {
    const ws = clone(["--depth", "1"]);
    const r = runAction({ workspace: ws.dir, event: "pull_request", payload: pr(sha.G2!, "0123456789abcdef0123456789abcdef01234567") });
    expect(r.code).not.toBe(0);
    expect(r.outputs.verdict).toBe("error");
    expect(r.stdout).toMatch(
      /::error::kvgate could not run: commit 0123456789ab is not in this clone, even after deepening it \d+ times%0A {2}fix: check out the full history: `actions\/checkout` with `fetch-depth: 0`/,
    );
  });

  test("policy-from: base (the default) keeps a pull request from loosening its own policy", () => {
    const ws = clone();
    const head = runAction({ workspace: ws.dir, event: "pull_request", payload: pr(sha.L!), inputs: { "policy-from": "head" } });
    expect([head.code, head.outputs.verdict]).toEqual([0, "pass"]);
    const base = runAction({ workspace: ws.dir, event: "pull_request", payload: pr(sha.L!) });
    expect(base.code, base.stdout).toBe(1);
    expect(base.annotations.map((x) => x.props.title)).toContain("radiance/headroom");
    expect(base.stdout).toContain(`policy from kvgate.yaml at the base commit ${sha.M!.slice(0, 12)}`);
  });

  test("policy-from: base reads .kvgateignore from the base: a pull request cannot accept its own key", () => {
    const ws = clone();
    const head = runAction({ workspace: ws.dir, event: "pull_request", payload: pr(sha.I!), inputs: { "policy-from": "head" } });
    expect([head.code, head.outputs.verdict], head.stdout).toEqual([0, "pass"]);
    // The default (base): the base's .kvgateignore holds.
    const base = runAction({ workspace: ws.dir, event: "pull_request", payload: pr(sha.I!) });
    expect([base.code, base.outputs.verdict], base.stdout).toEqual([1, "fail"]);
    expect(base.annotations.map((x) => x.props.title)).toContain("secret/aws-access-key-id");
    expect(base.stdout).not.toContain(`AKIA${"Z7Q3K5M2P6R4T6W5"}`);
  });

  test("a config input that is not UTF-8 fails the step, as --config and kvgate.yaml in the tree do", () => {
    const ws = clone();
    ws.write("ci/kvgate.yaml", Buffer.concat([Buffer.from("version: 1\n# "), Buffer.from([0xff, 0xfe]), Buffer.from("\n")]));
    const r = runAction({
      workspace: ws.dir,
      event: "pull_request",
      payload: pr(sha.G2!),
      inputs: { config: "ci/kvgate.yaml", "policy-from": "head" },
    });
    expect([r.code, r.outputs.verdict]).toEqual([1, "error"]);
    expect(r.stdout).toContain(
      "::error::kvgate could not run: ci/kvgate.yaml cannot be read: the file is not valid UTF-8; save it as UTF-8",
    );
  });

  test("a bad input value fails the step and names the allowed values", () => {
    const r = runAction({ workspace: clone().dir, event: "pull_request", payload: pr(sha.G2!), inputs: { "fail-on": "sometimes" } });
    expect(r.code).not.toBe(0);
    expect(r.stdout).toContain('input fail-on must be one of error, warning, never (got "sometimes")');
  });
});

describe("push", () => {
  test("before..after on the bad branch is refused", () => {
    const ws = clone();
    const r = runAction({
      workspace: ws.dir,
      event: "push",
      payload: { ref: "refs/heads/bad", before: sha.B, after: sha.X, repository: { default_branch: "main" } },
    });
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.outputs).toMatchObject({ verdict: "fail", errors: "1" });
    expect(r.annotations.filter((x) => x.props.title).map((x) => x.props.title)).toEqual(["engine/removed-flag"]);
  });

  test("a new branch gates the commits not on the default branch (depth-1 clone)", () => {
    const ws = clone(["--depth", "1"]);
    const r = runAction({
      workspace: ws.dir,
      event: "push",
      payload: { ref: "refs/heads/good", before: "0".repeat(40), after: sha.G2, created: true, repository: { default_branch: "main" } },
    });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain("new ref refs/heads/good: the commits not on main");
    expect(r.summary).toContain("2 deploy units");
    expect(r.outputs.verdict).toBe("pass");
  });

  test("a deleted branch has nothing to gate and passes", () => {
    const r = runAction({
      workspace: clone().dir,
      event: "push",
      payload: { ref: "refs/heads/old", before: sha.B, after: "0".repeat(40), deleted: true },
    });
    expect([r.code, r.outputs.verdict]).toEqual([0, "pass"]);
  });
});

describe("mode: audit", () => {
  test("a pushed secret with no recorded override is a bypass; the step fails", () => {
    const r = runAction({
      workspace: clone().dir,
      event: "push",
      payload: { ref: "refs/heads/leak", before: sha.B, after: sha.K },
      inputs: { mode: "audit" },
    });
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.outputs.verdict).toBe("fail");
    expect(r.annotations.map((x) => x.props.title)).toContain("audit/bypass");
    expect(r.summary).toContain("kvgate audit: fail");
    expect(r.summary).toMatch(/\| bypass \|/);
    expect(r.stdout + r.summary).not.toContain("Z7Q3K5M2P6R4T6W5");
  });
  test("a clean pushed range passes", () => {
    const r = runAction({
      workspace: clone().dir,
      event: "push",
      payload: { ref: "refs/heads/good", before: sha.B, after: sha.G2 },
      inputs: { mode: "audit" },
    });
    expect([r.code, r.outputs.verdict, r.outputs.errors], r.stdout + r.stderr).toEqual([0, "pass", "0"]);
    expect(r.summary).toMatch(/\| clean \|/);
  });
});

describe("workflow_dispatch", () => {
  test("inputs base/head pick the range", () => {
    const r = runAction({ workspace: clone().dir, event: "workflow_dispatch", payload: { inputs: { base: sha.B, head: sha.X } } });
    expect([r.code, r.outputs.verdict, r.outputs.errors]).toEqual([1, "fail", "1"]);
  });
});

test("the bundle exists where action.yml points", () => {
  expect(existsSync(new URL("../../dist/action/index.js", import.meta.url))).toBe(true);
  expect(readFileSync(new URL("../../action.yml", import.meta.url), "utf8")).toMatch(/using: node24\n\s+main: dist\/action\/index\.js/);
});
