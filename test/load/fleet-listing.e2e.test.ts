// Issue 13 item 3: the staged check never lists or reads the whole index or tree, only what the
// policy's globs can match (git's own glob pathspecs, or the folders the globs start with). GIT_TRACE (which the git door passes through) records every git
// command the built CLI runs; no listing may go without pathspecs. The globs themselves: fleet-listing.test.ts.
import { afterEach, expect, test } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { makeRepo, type TempRepo } from "../helpers/repo.js";
import { kvgate } from "../helpers/cli.js";

const made: TempRepo[] = [];
afterEach(async () => {
  for (const r of made.splice(0)) await r.cleanup();
});

test("check --staged on a fleet change lists only what the policy's globs match, never the whole index or tree", async () => {
  const r = await makeRepo();
  made.push(r);
  // The default compose glob (**/{docker-compose,compose}*.{yml,yaml}) matches anywhere: git's glob
  // pathspecs narrow it, so the listing still costs what matches, not the whole index.
  r.write("kvgate.yaml", "version: 1\n");
  for (let i = 0; i < 30; i++) r.write(`src/m${i}.ts`, `export const v${i} = ${i};\n`);
  r.write("scripts/a.env", "ENGINE=tgi\nHOST=fv-ml2\nGPU=0\nPORT=8080\n");
  r.write("playbooks/site.yml", "- hosts: fv-ml2\n  tasks: []\n");
  r.stage();
  r.commit("base", { noVerify: true });
  r.write("scripts/a.env", "ENGINE=tgi\nHOST=fv-ml2\nGPU=0\nPORT=8081\n");
  r.stage();
  const trace = join(r.dir, ".git", "trace.txt");
  const run = kvgate(["check", "--staged"], { cwd: r.dir, env: { GIT_TRACE: trace, KVGATE_FAST_PATH: "0" } });
  expect(run.code, run.stderr).toBe(0);
  const commands = readFileSync(trace, "utf8")
    .split("\n")
    .filter((l) => /trace: (built-in|exec): git /.test(l))
    .map((l) => l.replace(/^.*?git /, "git "));
  const listings = commands.filter((c) => / (ls-files|ls-tree) /.test(c));
  expect(listings.length).toBeGreaterThan(0);
  for (const c of listings) expect(c, c).toMatch(/ -- ':\(top,(literal|glob)\)/);
  expect(listings.some((c) => c.includes("(top,glob)scripts/*.env'") && c.includes("(top,glob)**/compose*.yml'"))).toBe(true);
  expect(commands.filter((c) => c.includes("src/m"))).toEqual([]);
});
