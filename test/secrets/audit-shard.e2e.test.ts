// Issue 13 item 6: `kvgate audit --shard I/N` splits a range into N contiguous blocks for a CI matrix.
// The shards together are the whole audit (same commits, same order, same classifications), each
// commit in exactly one shard; a merge's first-parent diff is audited in its shard as in the whole run.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { makeRepo, type TempRepo } from "../helpers/repo.js";
import { kvgate } from "../helpers/cli.js";
import { FAKE } from "./helpers.js";
import { shardBlock } from "../../src/git/repo.js";

describe("shardBlock: near-equal contiguous blocks", () => {
  test.each([
    [
      7,
      3,
      [
        [0, 1, 2],
        [3, 4],
        [5, 6],
      ],
    ],
    [
      6,
      3,
      [
        [0, 1],
        [2, 3],
        [4, 5],
      ],
    ],
    [2, 4, [[0], [1], [], []]],
    [5, 1, [[0, 1, 2, 3, 4]]],
  ])("%i commits in %i shards", (n, count, want) => {
    const items = Array.from({ length: n }, (_, i) => i);
    expect(Array.from({ length: count }, (_, k) => shardBlock(items, { index: k + 1, count }))).toEqual(want);
  });
});

interface Audit {
  verdict: string;
  range: string;
  commits: { sha: string; subject: string; classification: string }[];
}

describe("audit --shard I/N through the CLI", () => {
  let repo: TempRepo;
  let base = "";
  beforeAll(async () => {
    repo = await makeRepo();
    repo.write("README.md", "fleet\n");
    repo.stage();
    base = repo.commit("base");
    for (let i = 1; i <= 5; i++) {
      repo.write(`f${i}.txt`, `v${i}\n`);
      repo.stage();
      repo.commit(`c${i}`);
    }
    repo.git("checkout", "-q", "-b", "side");
    repo.write("side.env", `AWS_ACCESS_KEY_ID=${FAKE.awsId}\n`);
    repo.stage();
    repo.commit("side: a key, no verdict");
    repo.git("checkout", "-q", "main");
    repo.write("g.txt", "g\n");
    repo.stage();
    repo.commit("c6");
    repo.git("merge", "-q", "--no-ff", "-m", "merge side", "side");
  });
  afterAll(async () => repo.cleanup());

  const audit = (...extra: string[]): { code: number | null; out: Audit } => {
    const r = kvgate(["audit", "--range", `${base}..HEAD`, "--format", "json", ...extra], { cwd: repo.dir });
    return { code: r.code, out: JSON.parse(r.stdout) as Audit };
  };

  test("the shards add up to the whole audit, in order; each shard fails only for its own commits", () => {
    const whole = audit();
    expect(whole.out.commits).toHaveLength(8);
    expect(whole.code).toBe(1);
    expect(whole.out.commits.filter((c) => c.classification === "bypass").map((c) => c.subject)).toEqual([
      "side: a key, no verdict",
      "merge side",
    ]);
    for (const n of [2, 3, 8]) {
      const parts = Array.from({ length: n }, (_, k) => audit("--shard", `${k + 1}/${n}`));
      expect(parts.flatMap((p) => p.out.commits)).toEqual(whole.out.commits);
      parts.forEach((p, k) => expect(p.out.range).toBe(`${base}..HEAD (shard ${k + 1}/${n})`));
      // A shard fails exactly when it holds a failing commit (the side commit, and the merge its
      // first-parent diff brings the key in with).
      parts.forEach((p) => expect(p.code).toBe(p.out.commits.some((c) => c.classification === "bypass") ? 1 : 0));
    }
  });

  test("more shards than commits: the extra shards are empty and pass", () => {
    const r = audit("--shard", "9/9");
    expect(r.code).toBe(0);
    expect(r.out.commits).toEqual([]);
  });

  test.each([["0/3"], ["4/3"], ["2/0"], ["1-3"], ["a/b"], [""]])("--shard %j: exit 2 with the shape", (bad) => {
    const r = kvgate(["audit", "--range", `${base}..HEAD`, "--shard", bad], { cwd: repo.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--shard takes I\/N with 1 <= I <= N, e\.g\. --shard 2\/4/);
  });
});
