// The staged change's key and the git-dir reads behind it (src/git/staged-key.ts), against git itself
// in real repositories: HEAD as rev-parse says (loose, packed, detached, unborn, a linked worktree),
// the index's checksum as the file ends, and a key that changes exactly when the staged tree does.
import { afterAll, describe, expect, test } from "vitest";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { headAt, indexChecksum, stagedKey } from "../../src/git/staged-key.js";
import { readRaw } from "../../src/git/diffstream.js";
import { makeRepo, type TempRepo } from "../helpers/repo.js";

const temps: TempRepo[] = [];
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(temps.map((t) => t.cleanup()));
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
async function repo(): Promise<TempRepo> {
  const r = await makeRepo();
  temps.push(r);
  return r;
}
const gitDir = (r: TempRepo): string => join(r.dir, ".git");
const key = async (r: TempRepo): Promise<string> => stagedKey(headAt(gitDir(r)) ?? null, await readRaw(r.dir, ["--cached"]));

describe("headAt reads HEAD as git does", () => {
  test("unborn, a loose branch, a packed one, a detached HEAD", async () => {
    const r = await repo();
    expect(headAt(gitDir(r))).toBeNull();
    r.write("a.txt", "1\n");
    r.stage();
    const first = r.commit("one");
    expect(headAt(gitDir(r))).toBe(first);
    r.git("pack-refs", "--all");
    expect(headAt(gitDir(r))).toBe(first);
    r.write("a.txt", "2\n");
    r.stage();
    const second = r.commit("two");
    expect(headAt(gitDir(r))).toBe(r.git("rev-parse", "HEAD").trim());
    r.git("checkout", "-q", "--detach", first);
    expect(headAt(gitDir(r))).toBe(first);
    expect(second).not.toBe(first);
  });

  test("a linked worktree's HEAD (its own HEAD, the common refs)", async () => {
    const r = await repo();
    r.write("a.txt", "1\n");
    r.stage();
    r.commit("one");
    const wt = mkdtempSync(join(tmpdir(), "kvgate-wt-"));
    dirs.push(wt);
    r.git("worktree", "add", "-q", "-b", "side", join(wt, "side"));
    const dir = readFileSync(join(wt, "side", ".git"), "utf8")
      .replace(/^gitdir: /, "")
      .trim();
    expect(headAt(dir)).toBe(r.git("rev-parse", "side").trim());
  });

  test("what it cannot read is left to git (undefined), never a wrong commit", async () => {
    const r = await repo();
    writeFileSync(join(gitDir(r), "HEAD"), "garbage\n");
    expect(headAt(gitDir(r))).toBeUndefined();
    expect(headAt(join(r.dir, "no-such-dir"))).toBeUndefined();
  });
});

describe("the staged key", () => {
  test("changes when the staged tree does, not when an unstaged file or the index's stat data does", async () => {
    const r = await repo();
    r.write("a.txt", "1\n");
    r.stage();
    r.commit("one");
    const clean = await key(r);
    r.write("a.txt", "2\n");
    r.stage();
    const staged = await key(r);
    expect(staged).not.toBe(clean);
    r.write("b.txt", "unstaged\n");
    expect(await key(r)).toBe(staged);
    // git rewrites the index (stat data refreshed): the key holds, the index's checksum may move.
    r.git("update-index", "--really-refresh");
    expect(await key(r)).toBe(staged);
    r.git("mv", "a.txt", "c.txt");
    expect(await key(r)).not.toBe(staged);
    // The same staged content on another HEAD is another change.
    r.git("reset", "-q", "--hard");
    r.write("a.txt", "2\n");
    r.stage();
    r.commit("two");
    r.write("a.txt", "1\n");
    r.stage();
    expect(await key(r)).not.toBe(clean);
  });

  test("the index's checksum is its last 20 bytes; none for a missing index", async () => {
    const r = await repo();
    r.write("a.txt", "1\n");
    r.stage();
    const bytes = readFileSync(join(gitDir(r), "index"));
    expect(indexChecksum(join(gitDir(r), "index"))).toBe(bytes.subarray(bytes.length - 20).toString("hex"));
    expect(indexChecksum(join(gitDir(r), "no-index"))).toBeNull();
  });
});
