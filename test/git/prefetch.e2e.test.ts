// A git command started early (the hook's fast path, for the full path that follows it) is taken by
// the first runGit with the same folder and arguments: one git process, not two; anything else
// (other arguments, another folder, its own environment) starts its own.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { prefetchGit, runGit } from "../../src/git/exec.js";
import { makeRepo, type TempRepo } from "../helpers/repo.js";

let r: TempRepo;
let trace: string;

beforeAll(async () => {
  r = await makeRepo();
  r.write("scripts/a.env", "ENGINE=vllm\n");
  r.write("docs/b.md", "b\n");
  r.stage();
  trace = join(r.dir, ".git", "trace.txt");
});
afterAll(async () => {
  delete process.env.GIT_TRACE;
  await r.cleanup();
});

/** The ls-files processes git started since the trace was cleared. */
function listings(): number {
  return readFileSync(trace, "utf8")
    .split("\n")
    .filter((l) => l.includes("built-in: git ls-files")).length;
}

describe("prefetchGit", () => {
  it("is taken once by the same command: its output, and no second process", async () => {
    rmSync(trace, { force: true });
    process.env.GIT_TRACE = trace;
    const args = ["ls-files", "-z", "--", ":(top,glob)scripts/*.env"];
    prefetchGit(r.dir, args);
    prefetchGit(r.dir, args); // started once however often asked
    const first = await runGit(r.dir, args);
    expect(first.code).toBe(0);
    expect(first.stdout.toString("utf8")).toBe("scripts/a.env\0");
    expect(listings()).toBe(1);
    // Taken: the next identical command runs again (it may see a changed index).
    r.write("scripts/c.env", "ENGINE=vllm\n");
    r.stage(["scripts/c.env"]);
    const second = await runGit(r.dir, args);
    expect(second.stdout.toString("utf8")).toBe("scripts/a.env\0scripts/c.env\0");
    expect(listings()).toBe(2);
  });

  it("is not taken by other arguments, another folder or a command with its own environment", async () => {
    rmSync(trace, { force: true });
    process.env.GIT_TRACE = trace;
    const args = ["ls-files", "-z", "--", ":(top,glob)docs/*"];
    prefetchGit(r.dir, args);
    const other = await runGit(r.dir, ["ls-files", "-z", "--", ":(top,glob)docs/**"]);
    expect(other.stdout.toString("utf8")).toBe("docs/b.md\0");
    // Run in the sub-folder itself: git names the file relative to it.
    const elsewhere = await runGit(join(r.dir, "docs"), args);
    expect(elsewhere.stdout.toString("utf8")).toBe("b.md\0");
    const ownEnv = await runGit(r.dir, args, { env: { GIT_INDEX_FILE: join(r.dir, ".git", "no-such-index") } });
    expect(ownEnv.stdout.toString("utf8")).toBe("");
    expect(listings()).toBe(4);
    // Still there for the command it was started for.
    expect((await runGit(r.dir, args)).stdout.toString("utf8")).toBe("docs/b.md\0");
    expect(listings()).toBe(4);
  });
});
