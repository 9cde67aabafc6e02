// `kvgate audit --range REV`: one revision audits every commit it reaches, the root commit included.
// No A..B names the root (A..B leaves A out, and the empty tree is not a commit), so a token the very
// first commit landed with --no-verify could not be found. Found by an operator-style trial.
import { afterEach, expect, test } from "vitest";
import { makeRepo, type TempRepo } from "../helpers/repo.js";
import { kvgate } from "../helpers/cli.js";
import { FAKE } from "./helpers.js";

const made: TempRepo[] = [];
afterEach(async () => {
  for (const r of made.splice(0)) await r.cleanup();
});

interface Audit {
  verdict: string;
  commits: { subject: string; classification: string; findings: { rule: string; file: string; line: number }[] }[];
}

test("--range HEAD reaches the root commit's token (bypass); root..HEAD does not; a bad one is a usage error", async () => {
  const r = await makeRepo();
  made.push(r);
  r.write("seat.env", `HF_TOKEN=${FAKE.hf}\n`);
  r.stage();
  r.commit("initial import", { noVerify: true });
  r.write("seat.env", `HF_TOKEN=${FAKE.hf}\n# x\n`);
  r.stage();
  r.commit("second", { noVerify: true });

  const whole = kvgate(["audit", "--range", "HEAD", "--format", "json"], { cwd: r.dir });
  expect(whole.code).toBe(1);
  const doc = JSON.parse(whole.stdout) as Audit;
  expect(doc.verdict).toBe("fail");
  expect(doc.commits.map((c) => [c.subject, c.classification])).toEqual([
    ["initial import", "bypass"],
    ["second", "clean"],
  ]);
  expect(doc.commits[0]?.findings.find((f) => f.rule === "audit/bypass")).toMatchObject({ file: "seat.env", line: 1 });
  // The output never holds the token.
  expect(whole.stdout).not.toContain(FAKE.hf);

  const fromRoot = JSON.parse(kvgate(["audit", "--range", "HEAD~1..HEAD", "--format", "json"], { cwd: r.dir }).stdout) as Audit;
  expect(fromRoot.commits.map((c) => c.subject)).toEqual(["second"]);

  const bad = kvgate(["audit", "--range", "--all"], { cwd: r.dir });
  expect(bad.code).toBe(2);
});
