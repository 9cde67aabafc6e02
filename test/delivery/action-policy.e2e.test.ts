// Issue 12 item 4 (contract §11): policy integrity in CI. The bundled Action, run as the runner runs
// it (GITHUB_EVENT_PATH, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY), under its default inputs: a pull request
// cannot loosen its own policy, a missing base fails the step with the fix, and the override variable
// is never read from the CI environment.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { makeRepo, type TempRepo } from "../helpers/repo.js";
import { runAction } from "./action-env.js";
import { kvgate } from "../helpers/cli.js";
import { openRepo } from "../../src/git/index.js";
import { unitsUnderBase, withPolicyOf } from "../../src/engine/policy-base.js";

const CONFIG = "fleet:\n  hosts:\n    h:\n      gpus:\n        - { index: 0, total: 96GiB }\n";
const GOOD = "ENGINE=radiance\nHOST=h\nGPU=0\nGPU_HEADROOM_MIB=64\n";
/** A made-up AWS access key id (not a listed placeholder). */
const KEY = `AKIA${"Q7Z3K5M2P6R4T6W5"}`;

let origin: TempRepo;
const sha: Record<string, string> = {};
const temp: TempRepo[] = [];

// main:    A (config, env, .kvgateignore) ── B
// loosen:       B ── L  (kvgate.yaml: headroom floor 8; the env file's headroom 64 → 16)
// override:     B ── O  (kvgate.yaml: secrets.override GITHUB_RUN_ATTEMPT; a key in notes/)
beforeAll(async () => {
  origin = await makeRepo();
  origin.write("kvgate.yaml", CONFIG);
  origin.write("scripts/r.env", GOOD);
  origin.write(".kvgateignore", "sha256:000000000000 # base entry\n");
  origin.stage();
  sha.A = origin.commit("fleet");
  origin.write("README.md", "fleet\n");
  origin.stage();
  sha.B = origin.commit("readme");

  origin.git("checkout", "-q", "-b", "loosen", sha.B);
  origin.write("kvgate.yaml", CONFIG + "radiance: { headroom_floor_mib: 8 }\n");
  origin.write("scripts/r.env", GOOD.replace("64", "16"));
  origin.stage();
  sha.L = origin.commit("r: less headroom, and a lower floor");

  origin.git("checkout", "-q", "-b", "override", sha.B);
  origin.write("kvgate.yaml", CONFIG + "secrets: { override: GITHUB_RUN_ATTEMPT }\n");
  origin.write("notes/creds.txt", `aws_access_key_id = ${KEY}\n`);
  origin.write(".kvgateignore", "sha256:111111111111 # added by the change\n");
  origin.stage();
  sha.O = origin.commit("notes", { noVerify: true });

  // accept: B ── K (a key in notes/) ── I (.kvgateignore: the change accepts its own key)
  origin.git("checkout", "-q", "-b", "accept", sha.B);
  origin.write("notes/keys.txt", `aws_access_key_id = ${KEY}\n`);
  origin.stage();
  sha.K = origin.commit("notes: a key", { noVerify: true });
  const found = JSON.parse(kvgate(["check", "--commit", sha.K, "--format", "json"], { cwd: origin.dir }).stdout) as {
    findings: { rule: string; fingerprint: string }[];
  };
  const fp = found.findings.find((f) => f.rule === "secret/aws-access-key-id")?.fingerprint ?? "";
  origin.write(".kvgateignore", `sha256:000000000000 # base entry\n${fp} # accepted by the change itself\n`);
  origin.stage();
  sha.I = origin.commit("accept the key", { noVerify: true });

  origin.git("checkout", "-q", "main");
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

const pr = (head: string, base = sha.B!) => ({
  action: "synchronize",
  number: 9,
  pull_request: { number: 9, base: { ref: "main", sha: base }, head: { ref: "topic", sha: head } },
  repository: { default_branch: "main", full_name: "acme/fleet" },
});

describe("policy-from defaults to base", () => {
  test("a pull request that loosens its own kvgate.yaml is refused under the default inputs", () => {
    const r = runAction({ workspace: clone().dir, event: "pull_request", payload: pr(sha.L!) });
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.outputs).toMatchObject({ verdict: "fail", errors: "1" });
    const a = r.annotations.filter((x) => x.props.title === "radiance/headroom");
    expect(a.map((x) => [x.level, x.props.file, x.props.line])).toEqual([["error", "scripts/r.env", "4"]]);
    expect(r.stdout).toContain(`policy from kvgate.yaml and its .kvgateignore at the base commit ${sha.B!.slice(0, 12)}`);
    expect(r.summary).toContain("## ❌ kvgate: refused");
  });

  test("a pull request that accepts its own secret in .kvgateignore is refused: the base's .kvgateignore holds", () => {
    const range = { ...pr(sha.I!), pull_request: { number: 9, base: { ref: "main", sha: sha.B! }, head: { ref: "topic", sha: sha.I! } } };
    const r = runAction({ workspace: clone().dir, event: "pull_request", payload: range });
    expect(r.code, r.stdout + r.stderr).toBe(1);
    // Once for the commit that adds the key, once for the commit that edits .kvgateignore: a policy change
    // is checked as the whole tree (docs/coverage.md#the-policy-change), and the base's list holds.
    expect(r.annotations.filter((x) => x.props.title === "secret/aws-access-key-id").map((x) => [x.level, x.props.file])).toEqual([
      ["error", "notes/keys.txt"],
      ["error", "notes/keys.txt"],
    ]);
    // With policy-from: head each commit's own .kvgateignore reads; the key's commit (K) still holds it
    // unaccepted, so the range is refused there, and the accepting commit's own file exempts it.
    const head = runAction({ workspace: clone().dir, event: "pull_request", payload: range, inputs: { "policy-from": "head" } });
    expect(head.stdout + head.stderr).not.toContain(KEY);
    expect(r.stdout + r.stderr + r.summary).not.toContain(KEY);
  });

  test("policy-from: head, set knowingly, checks each commit under its own policy", () => {
    const r = runAction({ workspace: clone().dir, event: "pull_request", payload: pr(sha.L!), inputs: { "policy-from": "head" } });
    expect([r.code, r.outputs.verdict]).toEqual([0, "pass"]);
  });

  test("a new branch with no default branch to compare with fails the step with the fix, never uses the head's policy", () => {
    const ws = clone();
    // The default branch the payload names is not on the remote: there is no base commit.
    const payload = {
      ref: "refs/heads/loosen",
      before: "0".repeat(40),
      after: sha.L,
      created: true,
      repository: { default_branch: "trunk" },
    };
    const r = runAction({ workspace: ws.dir, event: "push", payload });
    expect(r.code).not.toBe(0);
    expect(r.outputs.verdict).toBe("error");
    expect(r.stdout).toContain(
      "::error::kvgate could not run: policy-from: base, but there is no base commit to read the policy from (kvgate.yaml, .kvgateignore)",
    );
    expect(r.stdout).toContain("fix: give actions/checkout `fetch-depth: 0`");
    expect(r.stdout).not.toContain("verdict=pass");
    // The same push with the default branch present gates the new commits under main's policy.
    const ok = runAction({ workspace: ws.dir, event: "push", payload: { ...payload, repository: { default_branch: "main" } } });
    expect([ok.code, ok.outputs.verdict], ok.stdout).toEqual([1, "fail"]);
    expect(ok.annotations.map((x) => x.props.title)).toContain("radiance/headroom");
  });
});

describe("the override variable is never honoured from the CI environment", () => {
  test.each([[{}], [{ "policy-from": "head" }]])(
    "inputs %j: secrets.override GITHUB_RUN_ATTEMPT with GITHUB_RUN_ATTEMPT=1 set is still refused",
    (inputs) => {
      const r = runAction({
        workspace: clone().dir,
        event: "pull_request",
        payload: pr(sha.O!),
        inputs,
        env: { GITHUB_RUN_ATTEMPT: "1", ALLOW_SECRETS: "1" },
      });
      expect(r.code, r.stdout + r.stderr).toBe(1);
      expect(r.outputs).toMatchObject({ verdict: "fail", errors: "1" });
      expect(
        r.annotations.filter((x) => x.level === "error" && x.props.title).map((x) => [x.props.title, x.props.file, x.props.line]),
      ).toEqual([["secret/aws-access-key-id", "notes/creds.txt", "1"]]);
      expect(r.stdout + r.summary).not.toContain(KEY);
      expect(r.summary).toContain("0 exempt, 0 allowed, 0 waived");
    },
  );
});

describe("the CLI reads the override variable only for --staged (the hook), never over existing commits", () => {
  test("check --commit / --range with the variable set is refused; --staged with it is allowed", () => {
    const ws = clone();
    const env = { GITHUB_RUN_ATTEMPT: "1" };
    for (const args of [
      ["--commit", sha.O!],
      ["--range", `${sha.B}..${sha.O}`],
    ]) {
      const run = kvgate(["check", ...args, "--format", "json"], { cwd: ws.dir, env });
      expect(run.code, run.stderr).toBe(1);
      expect(JSON.parse(run.stdout).counts).toMatchObject({ error: 1, allowed: 0 });
    }
    ws.git("checkout", "-q", sha.O!);
    ws.write("notes/more.txt", `aws_access_key_id = ${KEY}\n`);
    ws.stage();
    const staged = kvgate(["check", "--staged", "--format", "json"], { cwd: ws.dir, env });
    expect(staged.code, staged.stderr).toBe(0);
    expect(JSON.parse(staged.stdout).counts).toMatchObject({ error: 0, allowed: 1 });
  });
});

describe("the base's policy files hold in every unit's snapshots", () => {
  test("kvgate.yaml and .kvgateignore read from a head snapshot are the base's; other files are the head's", async () => {
    const ws = clone();
    const repo = await openRepo(ws.dir);
    const [head, base] = await Promise.all([repo.snapshot(sha.O!), repo.snapshot(sha.B!)]);
    const seen = withPolicyOf(head, base);
    const read = await seen.read(["kvgate.yaml", ".kvgateignore", "notes/creds.txt", "scripts/r.env"]);
    expect(read.get("kvgate.yaml")?.toString()).toBe(CONFIG);
    expect(read.get(".kvgateignore")?.toString()).toBe("sha256:000000000000 # base entry\n");
    expect(read.get("notes/creds.txt")?.toString()).toBe(`aws_access_key_id = ${KEY}\n`);
    expect(read.get("scripts/r.env")?.toString()).toBe(GOOD);
    expect(await seen.list()).toEqual([".kvgateignore", "README.md", "kvgate.yaml", "notes/creds.txt", "scripts/r.env"]);
    expect(await seen.list(["*.yaml"])).toEqual(["kvgate.yaml"]);
    // A base without a .kvgateignore: the head's is not read either.
    const [first] = unitsUnderBase(await repo.units({ mode: "commit", rev: sha.O! }), await repo.snapshot("empty"));
    expect((await first!.after.read([".kvgateignore", "kvgate.yaml"])).get(".kvgateignore")).toBeNull();
    expect(await first!.after.list()).not.toContain(".kvgateignore");
  });
});
