// Issue 12 item 9 through the built CLI: an env-only commit that makes the committed playbook deploy a
// different value than the env file now says is reported on that commit (not only under --all), at
// the env file's line; a commit that changes the playbook with it is not.
import { afterEach, expect, test } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { kvgate } from "../helpers/cli.js";
import type { TempFolder } from "../helpers/repo.js";
import { fleetRepo, lineOf, report, setEnv } from "./fixtures/fleet.js";

const made: TempFolder[] = [];
afterEach(async () => {
  for (const r of made.splice(0)) await r.cleanup();
});

const CODER = "scripts/coder.env";
const PLAYBOOK = "playbooks/fv-ml1-rebalance-20261005.yaml";

test("an env-only commit that the committed playbook now contradicts is reported on that commit", async () => {
  const { repo } = await fleetRepo(made);
  const text = readFileSync(join(repo.dir, CODER), "utf8");
  // The playbook writes coder's pin as 8,053,063,680 (7.5 GiB); the env file alone moves it to 8 GiB.
  repo.write(CODER, setEnv(text, { KV_CACHE_MEMORY_BYTES: "8589934592" }));
  repo.stage();
  const staged = report(kvgate(["check", "--staged", "--format", "json"], { cwd: repo.dir }));
  const sha = repo.commit("coder: 8 GiB pin");
  const commit = report(kvgate(["check", "--commit", sha, "--format", "json"], { cwd: repo.dir }));
  for (const doc of [staged, commit]) {
    const hits = doc.findings.filter((f) => f.rule === "playbook/drift");
    expect(hits.map((f) => [f.file, f.line, f.data.key, f.data.playbook_value, f.data.committed_value])).toEqual([
      [CODER, lineOf(text, "KV_CACHE_MEMORY_BYTES="), "KV_CACHE_MEMORY_BYTES", "8053063680", "8589934592"],
    ]);
    expect(hits[0]?.message).toContain(
      `${CODER} now sets KV_CACHE_MEMORY_BYTES=8589934592, but ${PLAYBOOK} (not in this change) still deploys 8053063680 to coder`,
    );
  }
  // An env change the playbook does not deploy (coder's utilization) opens no drift.
  repo.write(
    CODER,
    setEnv(readFileSync(join(repo.dir, CODER), "utf8"), { KV_CACHE_MEMORY_BYTES: "8053063680", GPU_MEMORY_UTILIZATION: "0.44" }),
  );
  repo.stage();
  const quiet = report(kvgate(["check", "--staged", "--format", "json"], { cwd: repo.dir }));
  expect(quiet.findings.filter((f) => f.rule === "playbook/drift")).toEqual([]);
});
