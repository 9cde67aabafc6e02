// Issue 26 for `usage`: a database that never answers or a table held locked ends in time, with the
// flag that bounds it named; a token or an escape sequence in a spend log's model_group never reaches
// the output raw; the spill folder of the sorted second pass is removed on SIGINT and SIGTERM, and a
// folder a killed run left is removed by the next run. Issue 30 item 8: a password that is not
// percent-encoded gets the encoding, never an echo of the URL.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { makeFolder, type TempFolder } from "../helpers/repo.js";
import { BIN, kvgate, ROOT } from "../helpers/cli.js";
import { GIT_ENV } from "../helpers/repo.js";
import { NO_POSTGRES, startPostgres, type PgServer } from "../helpers/postgres.js";
import { jsonLines } from "./litellm-rows.js";

let dir: TempFolder;
beforeAll(async () => {
  dir = await makeFolder();
});
afterAll(async () => {
  await dir.cleanup();
});

describe("a database that never answers, or a locked table: bounded by the flags, which the message names", () => {
  let server: Server;
  let port = 0;
  const held: Socket[] = [];
  beforeAll(async () => {
    // Accepts every connection and never says a word: a firewall that drops, a port of another service.
    server = createServer((s) => held.push(s));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const s of held) s.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  });

  test("a listener that accepts and never answers: exit 2 within --connect-timeout, naming it; no password shown", async () => {
    const started = Date.now();
    const r = await run(["usage", "--litellm-db", `postgresql://kvgate:s3cret-Pw@127.0.0.1:${port}/litellm`, "--connect-timeout", "1s"]);
    expect(r.code).toBe(2);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(r.stderr).toMatch(
      /PostgreSQL at postgresql:\/\/kvgate@127\.0\.0\.1:\d+\/litellm did not answer within 1s \(--connect-timeout 1s\)/,
    );
    expect(r.stderr).toMatch(/fix: .*raise --connect-timeout/);
    expect(r.stderr).not.toContain("s3cret-Pw");
  });

  test.each([
    [["--connect-timeout", "soon"], /--connect-timeout must be a duration/],
    [["--statement-timeout", "0s"], /--statement-timeout must be a duration/],
  ])("%j is a usage error", (args, message) => {
    const r = kvgate(["usage", "--litellm-db", "postgresql://u@localhost/db", ...args], { cwd: dir.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  describe.skipIf(NO_POSTGRES)("against PostgreSQL", () => {
    let pg: PgServer;
    beforeAll(async () => {
      pg = await startPostgres();
      pg.psql("CREATE DATABASE litellm");
      pg.psql("CREATE ROLE kvgate LOGIN PASSWORD 'kv-pw'");
      pg.psql(readFileSync(join(ROOT, "test", "helpers", "litellm-spendlogs.sql"), "utf8"), { db: "litellm" });
      pg.psql(`GRANT SELECT ON "LiteLLM_SpendLogs" TO kvgate`, { db: "litellm" });
    }, 120_000);
    afterAll(() => pg?.stop());

    test("a table another session holds locked: the statement is cancelled at --statement-timeout, named", async () => {
      // psql holds an ACCESS EXCLUSIVE lock for 60 s while kvgate runs.
      const locker = pg.spawnPsql(`BEGIN; LOCK TABLE "LiteLLM_SpendLogs" IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(60); COMMIT;`, {
        db: "litellm",
      });
      try {
        await waitFor(
          () =>
            pg
              .psql(`SELECT count(*) FROM pg_locks WHERE mode = 'AccessExclusiveLock' AND relation = '"LiteLLM_SpendLogs"'::regclass`, {
                db: "litellm",
              })
              .trim() === "1",
        );
        const started = Date.now();
        const r = await run(["usage", "--litellm-db", pg.url("kvgate", "kv-pw", "litellm"), "--statement-timeout", "2s"]);
        expect(r.code).toBe(2);
        expect(Date.now() - started).toBeLessThan(20_000);
        expect(r.stderr).toMatch(/a statement ran past --statement-timeout 2s \(a lock on "LiteLLM_SpendLogs"\?/);
        expect(r.stderr).toMatch(/fix: narrow the window with --since\/--until, wait for the lock to go, or raise --statement-timeout/);
      } finally {
        locker.kill();
      }
    }, 60_000);

    test("issue 30 item 8: a password with unencoded # and / is 'not a URL' with the percent-encodings, and is never echoed", () => {
      const password = "pa#ss/w?rd";
      const r = kvgate(["usage", "--litellm-db", `postgresql://kvgate:${password}@127.0.0.1:${pg.port}/litellm`], { cwd: dir.dir });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/--litellm-db is not a URL: .*must be percent-encoded in the URL \(# → %23, \/ → %2F, \? → %3F, @ → %40/);
      expect(r.stderr).toMatch(/or leave the password out of the URL and set PGPASSWORD/);
      expect(r.stderr).not.toContain(password);
      expect(r.stderr).not.toContain("pa#ss");
      // Encoded as told, it logs in.
      pg.psql(`ALTER ROLE kvgate PASSWORD '${password}'`);
      const ok = kvgate(["usage", "--litellm-db", `postgresql://kvgate:${encodeURIComponent(password)}@127.0.0.1:${pg.port}/litellm`], {
        cwd: dir.dir,
      });
      expect(ok.code, ok.stderr).toBe(0);
      // And a % that is not an encoding is said so, not a crash.
      const bad = kvgate(["usage", "--litellm-db", `postgresql://kvgate:100%zz@127.0.0.1:${pg.port}/litellm`], { cwd: dir.dir });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/the password holds a % that is not a percent-encoding/);
      expect(bad.stderr).not.toMatch(/URIError|at decodeURIComponent/);
    });
  });
});

describe("a model_group is shown text: masked as every other", () => {
  test("a GitHub token used as model_group is never printed whole; an ESC in one is a visible escape", () => {
    const token = `ghp_${randomBytes(64)
      .toString("base64")
      .replace(/[^A-Za-z0-9]/g, "")
      .slice(0, 36)}`;
    const rows = [
      { id: "r1", group: token, prompt: 100, completion: 10, start: 0, end: 5 },
      { id: "r2", group: "evil\u001b]0;pwned\u0007name", prompt: 100, completion: 10, start: 0, end: 5 },
    ];
    dir.write("hostile.jsonl", jsonLines(rows));
    for (const format of ["text", "json"]) {
      const r = kvgate(["usage", "--litellm", "hostile.jsonl", "--format", format], { cwd: dir.dir });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout + r.stderr).not.toContain(token);
      expect(r.stdout + r.stderr).not.toContain(token.slice(4, 16));
      expect(r.stdout).not.toMatch(/[\u0007\u001b]/);
      expect(r.stdout).toContain(format === "json" ? "evil\\\\e]0;pwned\\\\x07name" : "evil\\e]0;pwned\\x07name");
      expect(r.stdout).toMatch(/ghp_…|ghp_\*|ghp_.{0,4}…/);
    }
  });
});

describe("spill folders: removed on SIGINT and SIGTERM, and after a hard kill by the next run", () => {
  let big: string;
  beforeAll(() => {
    // Newest first: the in-flight peaks need the sorted second pass, which keeps its runs in a folder.
    const file = join(dir.dir, "week.jsonl");
    spawnSync(process.execPath, [join(ROOT, "bench", "gen-spend-logs.mjs"), "--rows", "300000", "--out", file], { stdio: "ignore" });
    big = join(dir.dir, "newest-first.jsonl");
    writeFileSync(big, readFileSync(file, "utf8").trimEnd().split("\n").reverse().join("\n") + "\n");
  }, 120_000);

  test.each(["SIGTERM", "SIGINT"] as const)(
    "%s during the second pass: the folder is gone, the process dies of the signal",
    async (signal) => {
      const tmp = join(dir.dir, `tmp-${signal}`);
      mkdirSync(tmp);
      const child = spawn(process.execPath, [BIN, "usage", "--litellm", big, "--format", "json"], {
        cwd: dir.dir,
        env: { ...GIT_ENV, TMPDIR: tmp, NO_COLOR: "1" },
        stdio: "ignore",
      });
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
        child.on("exit", (code, sig) => r({ code, signal: sig })),
      );
      const folder = await waitFor(() => readdirSync(tmp).find((n) => n.startsWith(`kvgate-inflight-${child.pid}-`)), 60_000);
      child.kill(signal);
      const end = await exited;
      expect(end.signal).toBe(signal);
      expect(existsSync(join(tmp, folder))).toBe(false);
      expect(readdirSync(tmp)).toEqual([]);
    },
    90_000,
  );

  test("a folder left by a killed run (its process gone) is removed at the next start; a live one is kept", async () => {
    const tmp = join(dir.dir, "tmp-stale");
    mkdirSync(tmp);
    const gone = spawnSync(process.execPath, ["-e", "0"]).pid;
    mkdirSync(join(tmp, `kvgate-inflight-${gone}-Ab12Cd`));
    writeFileSync(join(tmp, `kvgate-inflight-${gone}-Ab12Cd`, "run-0.bin"), Buffer.alloc(1024));
    mkdirSync(join(tmp, `kvgate-inflight-${process.pid}-Ef34Gh`));
    dir.write("one.jsonl", jsonLines([{ id: "r1", group: "g", prompt: 1, completion: 1, start: 0, end: 1 }]));
    const r = kvgate(["usage", "--litellm", "one.jsonl"], { cwd: dir.dir, env: { TMPDIR: tmp } });
    expect(r.code).toBe(0);
    expect(readdirSync(tmp)).toEqual([`kvgate-inflight-${process.pid}-Ef34Gh`]);
  });
});

/** The CLI as a process, without blocking this one (a test server runs in it). */
function run(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: dir.dir, env: { ...GIT_ENV, NO_COLOR: "1" } });
    let stderr = "";
    child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
    child.on("exit", (code) => resolve({ code, stderr }));
  });
}

async function waitFor<T>(probe: () => T | undefined | false, ms = 20_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v) return v;
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 20));
  }
}
