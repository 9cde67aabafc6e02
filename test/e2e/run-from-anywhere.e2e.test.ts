// Issue 12 item 3: `--repo` defaults to the repository's top level (contract §12). A run from a
// sub-folder checks the whole repository, exactly as a run from the root, and the verdict it records
// for the staged tree (the Kvgate-Verdict trailer of a later `--no-verify` commit) is that run's.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, test } from "vitest";
import { makeRepo, type TempRepo } from "../helpers/repo.js";
import { kvgate } from "../helpers/cli.js";

const made: TempRepo[] = [];
afterEach(async () => {
  for (const r of made.splice(0)) await r.cleanup();
});

// A removed radiance flag: one error at line 4 wherever the run starts.
const RADIANCE_BAD = 'ENGINE=radiance\nHOST=fv-ml2\nGPU=0\nSERVE_ARGS="--vram-kv-mib 4096"\n';

async function badSeatStaged(): Promise<TempRepo> {
  const r = await makeRepo();
  made.push(r);
  r.write("README.md", "fleet\n");
  r.write("docs/notes.md", "how the fleet is run\n");
  // The cards of fv-ml2: without them a new seat is unsized (fleet/unsized).
  r.write("kvgate.yaml", "fleet:\n  hosts:\n    fv-ml2: { gpus: [ { index: 0, total: 96GiB }, { index: 1, total: 96GiB } ] }\n");
  r.write("scripts/ok.env", "ENGINE=tgi\nHOST=fv-ml2\nGPU=1\nPORT=8080\n");
  r.commit("init", { allowEmpty: true });
  r.stage();
  r.commit("fleet");
  r.write("scripts/x.env", RADIANCE_BAD);
  r.stage();
  return r;
}

/** The trailer `kvgate hook prepare-commit-msg` writes for the staged tree. */
function trailer(r: TempRepo, cwd: string): string {
  const msg = join(r.dir, ".git", "COMMIT_EDITMSG");
  r.write(".git/COMMIT_EDITMSG", "add x\n");
  const run = kvgate(["hook", "prepare-commit-msg", msg], { cwd });
  expect(run.code).toBe(0);
  return (
    readFileSync(msg, "utf8")
      .split("\n")
      .find((l) => l.startsWith("Kvgate-Verdict:")) ?? ""
  );
}

describe("a run from a sub-folder is a run from the root", () => {
  test.each([["json"], ["text"], ["sarif"]])("check --staged --format %s from scripts/ equals the root's, exit 1", async (format) => {
    const r = await badSeatStaged();
    const root = kvgate(["check", "--format", format], { cwd: r.dir });
    const sub = kvgate(["check", "--format", format], { cwd: join(r.dir, "scripts") });
    expect(root.code).toBe(1);
    expect(sub).toEqual(root);
    if (format === "json") {
      const doc = JSON.parse(sub.stdout);
      expect(doc.counts.error).toBe(1);
      expect(doc.findings.filter((f: { severity: string }) => f.severity === "error")).toMatchObject([
        { rule: "engine/removed-flag", file: "scripts/x.env", line: 4 },
      ]);
    }
  });

  test("the verdict recorded from scripts/ is the refusal, so a --no-verify commit carries not-run", async () => {
    const r = await badSeatStaged();
    expect(kvgate(["check"], { cwd: join(r.dir, "scripts") }).code).toBe(1);
    const tree = r.git("write-tree").trim();
    expect(trailer(r, join(r.dir, "scripts"))).toBe(`Kvgate-Verdict: not-run tree=${tree}`);
    // The same tree fixed and checked from the sub-folder records a pass.
    r.remove("scripts/x.env");
    r.write("scripts/x.env", "ENGINE=radiance\nHOST=fv-ml2\nGPU=0\n");
    r.stage();
    const fixed = kvgate(["check"], { cwd: join(r.dir, "scripts") });
    expect(fixed.code).toBe(0);
    expect(trailer(r, r.dir)).toBe(`Kvgate-Verdict: pass tree=${r.git("write-tree").trim()}`);
  });

  test("explain and audit from a sub-folder read the whole repository", async () => {
    const r = await badSeatStaged();
    const root = kvgate(["explain", "--format", "json"], { cwd: r.dir });
    const sub = kvgate(["explain", "--format", "json"], { cwd: join(r.dir, "scripts") });
    expect(sub).toEqual(root);
    expect(
      JSON.parse(sub.stdout)
        .services.map((s: { name: string }) => s.name)
        .sort(),
    ).toEqual(["ok", "x"]);
    const audit = kvgate(["audit", "--range", "HEAD~1..HEAD", "--format", "json"], { cwd: join(r.dir, "scripts") });
    expect(audit.code).toBe(0);
    expect(JSON.parse(audit.stdout).commits.map((c: { subject: string }) => c.subject)).toEqual(["fleet"]);
  });
});

describe("--repo given a sub-folder checks that folder as a fleet of its own", () => {
  test("its pass is not recorded as the staged tree's verdict", async () => {
    const r = await badSeatStaged();
    // docs/ as a fleet root has no env file, no seat: nothing to refuse there.
    const run = kvgate(["check", "--repo", "docs"], { cwd: r.dir });
    expect(run.code).toBe(0);
    expect(trailer(r, r.dir)).toBe(`Kvgate-Verdict: not-run tree=${r.git("write-tree").trim()}`);
  });
});
