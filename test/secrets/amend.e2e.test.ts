// Issue 26: `git commit --amend` with kvgate's hooks installed. The staged run gates HEAD → tree only,
// so the amended commit's trailers join it with HEAD's own: an override record is kept while its
// file is, a commit that skipped the gate stays not-run, and `--amend -m` (which git reports to the
// hook as a plain message) is recognised too. Through real commits, the built CLI, both answerers.
import { afterEach, describe, expect, test } from "vitest";
import { execFileSync, spawnSync } from "node:child_process";
import { GIT_ENV, type TempRepo } from "../helpers/repo.js";
import { hookedRepo } from "../helpers/install.js";
import { FAKE } from "./helpers.js";
import { amendedHeadOf, amendedRecord } from "../../src/secrets/amend.js";

const made: TempRepo[] = [];
afterEach(async () => {
  for (const r of made.splice(0)) await r.cleanup();
});

/** A repository with `kvgate init`'s own hooks: what a user's amend runs. */
async function hooked(): Promise<TempRepo> {
  const r = await hookedRepo();
  made.push(r);
  return r;
}

function gitIn(r: TempRepo, fast: boolean) {
  return (args: string[], extra: Record<string, string> = {}): void => {
    const run = spawnSync("git", args, {
      cwd: r.dir,
      env: { ...GIT_ENV, GIT_EDITOR: "true", KVGATE_FAST_PATH: fast ? "1" : "0", ...extra },
      encoding: "utf8",
    });
    if (run.status !== 0) throw new Error(`git ${args.join(" ")}: ${run.stderr}`);
  };
}

const headMessage = (r: TempRepo): string =>
  execFileSync("git", ["log", "-1", "--format=%B"], { cwd: r.dir, env: GIT_ENV, encoding: "utf8" });
const verdictOf = (m: string): string => /Kvgate-Verdict: (\S+)/.exec(m)?.[1] ?? "none";
const allowedOf = (m: string): string[] => [...m.matchAll(/^Kvgate-Allowed-Secret: (.*)$/gm)].map((x) => x[1] ?? "");

describe.each([
  ["the CLI", false],
  ["the hook bundle", true],
])("git commit --amend, answered by %s", (_, fast) => {
  test("an override record is kept through an amend that leaves the secret (it was dropped and pass written)", async () => {
    const r = await hooked();
    const git = gitIn(r, fast);
    r.write("docs/keys.txt", `aws ${FAKE.awsId}\n`);
    git(["add", "-A"]);
    git(["commit", "-q", "-m", "keys"], { ALLOW_SECRETS: "1" });
    const first = headMessage(r);
    expect(verdictOf(first)).toBe("allowed");
    expect(allowedOf(first)).toHaveLength(1);
    expect(allowedOf(first)[0]).toMatch(/^secret\/aws-access-key-id sha256:[0-9a-f]{12} docs\/keys\.txt:1$/);

    // A clean change amended in, without the override: the secret is still in the amended commit.
    r.write("README.md", "b\n");
    git(["add", "-A"]);
    git(["commit", "-q", "--amend", "--no-edit"]);
    expect(verdictOf(headMessage(r))).toBe("allowed");
    expect(allowedOf(headMessage(r))).toEqual(allowedOf(first));

    // --amend -m: git tells the hook only "message", the command line says amend.
    git(["commit", "-q", "--amend", "-m", "keys, reworded"]);
    expect(headMessage(r)).toMatch(/^keys, reworded\n/);
    expect(verdictOf(headMessage(r))).toBe("allowed");
    expect(allowedOf(headMessage(r))).toEqual(allowedOf(first));

    // The secret's file removed in an amend: nothing left to record, and the tree passes.
    git(["rm", "-q", "docs/keys.txt"]);
    git(["commit", "-q", "--amend", "--no-edit"]);
    expect(verdictOf(headMessage(r))).toBe("pass");
    expect(allowedOf(headMessage(r))).toEqual([]);
  });

  test("amending a commit that skipped the gate is not-run: the staged run never saw its change", async () => {
    const r = await hooked();
    const git = gitIn(r, fast);
    r.write("docs/keys.txt", `aws ${FAKE.awsId}\n`);
    git(["add", "-A"]);
    git(["commit", "-q", "--no-verify", "-m", "keys"]);
    expect(verdictOf(headMessage(r))).toBe("not-run");
    git(["commit", "-q", "--amend", "-m", "keys again"]);
    expect(verdictOf(headMessage(r))).toBe("not-run");
    // A plain commit on top is gated as before.
    r.write("README.md", "c\n");
    git(["add", "-A"]);
    git(["commit", "-q", "-m", "readme"]);
    expect(verdictOf(headMessage(r))).toBe("pass");
  });
});

describe("amendedRecord", () => {
  const pass = { version: 2 as const, key: "k", index: null, verdict: "pass" as const, at: "", allowed: [] };
  const head = amendedHeadOf("x\n\nKvgate-Verdict: allowed tree=b\nKvgate-Allowed-Secret: secret/x sha256:0123456789ab dir/a b.env:3\n");
  test("HEAD's trailers parsed, a file name with a space kept whole", () => {
    expect(head).toEqual({
      verdict: "allowed",
      allowed: [{ rule: "secret/x", fingerprint: "sha256:0123456789ab", file: "dir/a b.env", line: 3 }],
    });
  });
  test("kept while the file is there, dropped when it is gone; no run or a failed one is not-run", () => {
    expect(amendedRecord(pass, head, () => true)?.verdict).toBe("allowed");
    expect(amendedRecord(pass, head, () => false)).toEqual(pass);
    expect(amendedRecord(null, head, () => true)).toBeNull();
    expect(amendedRecord({ ...pass, verdict: "fail" }, head, () => true)).toBeNull();
    expect(amendedRecord(pass, { verdict: null, allowed: [] }, () => true)).toBeNull();
  });
});
