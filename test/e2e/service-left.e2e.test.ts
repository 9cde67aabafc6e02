// Issue 12 item 2: a change to kvgate.yaml that narrows the services glob so an existing env file is no
// longer read is reported (fleet/service-left), through the built CLI in a real temp repo holding the
// example fleet. Both sides of a change are checked under the after's kvgate.yaml, so without reading the
// before under its own policy the dropped seat shows on neither side and the change passes silently.
import { afterEach, describe, expect, test } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { kvgate } from "../helpers/cli.js";
import type { TempFolder, TempRepo } from "../helpers/repo.js";
import { fleetRepo, report } from "./fixtures/fleet.js";

const made: TempFolder[] = [];
afterEach(async () => {
  for (const r of made.splice(0)) await r.cleanup();
});

// Every seat of the example fleet but intern-decision.
const NARROW = "scripts/{coder,cyberprev,erp-seat,frank-archon,gen-small,meromero-rp,voices}.env";

function narrow(repo: TempRepo, glob: string): void {
  const text = readFileSync(join(repo.dir, "kvgate.yaml"), "utf8");
  repo.write("kvgate.yaml", `services: "${glob}"\n${text.replace(/^services:.*\n/m, "")}`);
}

describe("fleet/service-left: a narrowed services glob", () => {
  test("a staged kvgate.yaml that stops matching scripts/intern-decision.env is reported at that file", async () => {
    const { repo } = await fleetRepo(made);
    narrow(repo, NARROW);
    repo.stage();
    const doc = report(kvgate(["check", "--staged", "--format", "json"], { cwd: repo.dir }));
    const left = doc.findings.filter((f) => f.rule === "fleet/service-left");
    expect(left.map((f) => [f.status, f.severity, f.service, f.file, f.line, f.data.from, f.data.glob])).toEqual([
      ["open", "warning", "intern-decision", "scripts/intern-decision.env", 1, "scripts/*.env", NARROW],
    ]);
    expect(left[0]?.message).toContain(`which no longer matches scripts/intern-decision.env, so kvgate no longer checks it`);
    // A warning: refused under --fail-on warning.
    expect(kvgate(["check", "--staged", "--fail-on", "warning"], { cwd: repo.dir }).code).toBe(1);
  });

  test("the same change committed, checked with --commit, is reported too", async () => {
    const { repo } = await fleetRepo(made);
    narrow(repo, NARROW);
    repo.stage();
    const sha = repo.commit("narrow the services glob");
    const doc = report(kvgate(["check", "--commit", sha, "--format", "json"], { cwd: repo.dir }));
    expect(doc.findings.filter((f) => f.rule === "fleet/service-left").map((f) => [f.service, f.file])).toEqual([
      ["intern-decision", "scripts/intern-decision.env"],
    ]);
  });

  test("a glob rewritten to match the same files (scripts/**/*.env) reports nothing", async () => {
    const { repo } = await fleetRepo(made);
    narrow(repo, "scripts/**/*.env");
    repo.stage();
    const doc = report(kvgate(["check", "--staged", "--format", "json"], { cwd: repo.dir }));
    expect(doc.findings.filter((f) => f.rule === "fleet/service-left")).toEqual([]);
  });

  test("a malformed glob change is refused as a config error, never a silent pass", async () => {
    const { repo } = await fleetRepo(made);
    repo.write("kvgate.yaml", `services: [1, 2]\n${readFileSync(join(repo.dir, "kvgate.yaml"), "utf8").replace(/^services:.*\n/m, "")}`);
    repo.stage();
    const run = kvgate(["check", "--staged"], { cwd: repo.dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("services");
  });
});
