// Issue 26: a run killed on a timeout left its 20–30 MB spill folder in the temp directory. The folders
// kvgate makes (src/git/temp.ts: git's big-diff spill, the index copy, usage's sort runs) are removed on
// SIGINT and SIGTERM, and what a run killed outright left is removed by the next run that spills.
// Through the built CLI on a real repository with a staged change past SPILL_BYTES, TMPDIR its own.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GIT_ENV, makeRepo, type TempRepo } from "../helpers/repo.js";
import { BIN, kvgate } from "../helpers/cli.js";
import { SPILL_BYTES } from "../../src/git/spill.js";

let repo: TempRepo;
/** The TMPDIR folders the runs are given. */
let work: string;
beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "kvgate-temp-test-"));
  repo = await makeRepo();
  repo.write("data/dump.txt", "first\n");
  repo.stage();
  repo.commit("init");
  // A modified file whose patch is eight times SPILL_BYTES: its hunks go to the spill folder.
  const line = "x".repeat(99);
  repo.write(
    "data/dump.txt",
    `${Array.from({ length: Math.ceil((SPILL_BYTES * 8) / 100) }, (_, i) => `${line.slice(String(i).length)}${i}`).join("\n")}\n`,
  );
  repo.stage();
}, 120_000);
afterAll(async () => {
  rmSync(work, { recursive: true, force: true });
  await repo.cleanup();
});

async function waitFor<T>(probe: () => T | undefined | false, ms: number): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v) return v;
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe("kvgate's temp folders", () => {
  test.each(["SIGTERM", "SIGINT"] as const)(
    "%s while a big staged diff is spilled: the folder is removed and the process dies of the signal",
    async (signal) => {
      const tmp = join(work, signal);
      mkdirSync(tmp);
      const child = spawn(process.execPath, [BIN, "check", "--staged"], {
        cwd: repo.dir,
        env: { ...GIT_ENV, TMPDIR: tmp },
        stdio: "ignore",
      });
      const exited = new Promise<NodeJS.Signals | null>((r) => child.on("exit", (_code, sig) => r(sig)));
      const folder = await waitFor(() => readdirSync(tmp).find((n) => n.startsWith(`kvgate-spill-${child.pid}-`)), 60_000);
      child.kill(signal);
      expect(await exited).toBe(signal);
      expect(existsSync(join(tmp, folder))).toBe(false);
      expect(readdirSync(tmp)).toEqual([]);
    },
    90_000,
  );

  test("folders a killed run left (its process gone) are removed by the next run that spills; a live one is kept", () => {
    const tmp = join(work, "stale");
    mkdirSync(tmp);
    const gone = spawnSync(process.execPath, ["-e", "0"]).pid;
    for (const name of [`kvgate-spill-${gone}-Ab12Cd`, `kvgate-index-${gone}-Ef34Gh`]) {
      mkdirSync(join(tmp, name));
      writeFileSync(join(tmp, name, "left"), Buffer.alloc(1024));
    }
    const mine = `kvgate-spill-${process.pid}-Ij56Kl`;
    mkdirSync(join(tmp, mine));
    const r = kvgate(["check", "--staged"], { cwd: repo.dir, env: { TMPDIR: tmp } });
    expect(r.code).toBe(0);
    // Its own spill folder is gone too (removed at exit).
    expect(readdirSync(tmp)).toEqual([mine]);
  });
});
