// `usage --litellm-db`: LiteLLM's own PostgreSQL, aggregated in SQL. A real server (test/helpers/
// postgres.ts) with LiteLLM's table layout; one generated week loaded both as a file and into the
// table must give the same report, number for number. Every failure is exit 2 with what to fix, and
// the password never shows.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { makeFolder, type TempFolder } from "../helpers/repo.js";
import { kvgate, ROOT } from "../helpers/cli.js";
import { NO_POSTGRES, startPostgres, type PgServer } from "../helpers/postgres.js";

const PASSWORD = "pw-S3cret!x#9/kv";
const FLEET = join(ROOT, "examples", "fleet");
const COLUMNS = `request_id,call_type,api_key,prompt_tokens,completion_tokens,"startTime","endTime",model,model_group,metadata,status`;

describe.skipIf(NO_POSTGRES)("usage --litellm-db against PostgreSQL", () => {
  let pg: PgServer;
  let dir: TempFolder;
  let csv: string;

  beforeAll(async () => {
    dir = await makeFolder();
    pg = await startPostgres();
    execFileSync(process.execPath, [join(ROOT, "bench", "gen-spend-logs.mjs"), "--format", "csv", "--out", join(dir.dir, "week.csv")], {
      stdio: "ignore",
    });
    // Two rows no report can use, in the file and in the table alike.
    csv =
      readFileSync(join(dir.dir, "week.csv"), "utf8") +
      `bad-1,acompletion,k1,10,5,2026-10-01T00:00:10.000Z,2026-10-01T00:00:09.000Z,hosted_vllm/gen-small,gen-small,{},success\n` +
      `bad-2,acompletion,k1,-4,5,2026-10-01T00:00:10.000Z,2026-10-01T00:00:11.000Z,hosted_vllm/gen-small,gen-small,{},success\n`;
    dir.write("week.csv", csv);
    const schema = readFileSync(join(ROOT, "test", "helpers", "litellm-spendlogs.sql"), "utf8");
    pg.psql(`CREATE ROLE kvgate LOGIN PASSWORD '${PASSWORD}'`);
    for (const db of ["litellm", "empty", "old"]) pg.psql(`CREATE DATABASE ${db}`);
    pg.psql(schema, { db: "litellm" });
    pg.psql(`\\copy "LiteLLM_SpendLogs"(${COLUMNS}) FROM STDIN WITH (FORMAT csv, HEADER true)`, { db: "litellm", input: csv });
    pg.psql(`GRANT SELECT ON "LiteLLM_SpendLogs" TO kvgate`, { db: "litellm" });
    // A spend-log table from before model_group existed.
    pg.psql(
      `CREATE TABLE "LiteLLM_SpendLogs" (request_id text PRIMARY KEY, api_key text, model text, prompt_tokens int, completion_tokens int, "startTime" timestamp(3), "endTime" timestamp(3)); GRANT SELECT ON "LiteLLM_SpendLogs" TO kvgate`,
      { db: "old" },
    );
  }, 120_000);

  afterAll(async () => {
    pg?.stop();
    await dir?.cleanup();
  });

  const run = (args: string[], env: Record<string, string> = {}) => kvgate(["usage", ...args, "--repo", FLEET], { cwd: dir.dir, env });
  const comparable = (stdout: string) => {
    const r = JSON.parse(stdout);
    delete r.source;
    delete r.problems;
    return r;
  };

  test("the same rows give the same report from the file and from the table", () => {
    const file = run(["--litellm", join(dir.dir, "week.csv"), "--format", "json"]);
    const db = run(["--litellm-db", pg.url("kvgate", PASSWORD, "litellm"), "--format", "json"]);
    expect(file.code).toBe(0);
    expect(db.code).toBe(0);
    expect(comparable(db.stdout)).toEqual(comparable(file.stdout));
    const report = JSON.parse(db.stdout);
    expect(report.rows).toEqual({ read: 37_096, used: 37_094, skipped: 2, outside_window: 0, failed: 0, cache_hits: 0 });
    expect(report.problems.map((p: { reason: string }) => p.reason)).toEqual([
      "request bad-1: endTime 2026-10-01 00:00:09 is before startTime 2026-10-01 00:00:10",
      "request bad-2: prompt_tokens: expected a whole number of tokens ≥ 0, got -4",
    ]);
    const g = report.services.find((s: { name: string }) => s.name === "gen-small");
    expect(g).toMatchObject({
      calls: 22_396,
      runaway_count: 9,
      prompt_tokens: { p99: 4_438 },
      peak_inflight_tokens_without_runaways: 24_595,
    });
    expect(report.source).toEqual({ database: `postgresql://kvgate@127.0.0.1:${pg.port}/litellm` });
    expect(db.stdout + db.stderr).not.toContain(PASSWORD);
  });

  test("--since/--until: the same window both ways", () => {
    const w = ["--since", "2026-10-01", "--until", "2026-10-03T12:00:00Z", "--format", "json"];
    const file = run(["--litellm", join(dir.dir, "week.csv"), ...w]);
    const db = run(["--litellm-db", pg.url("kvgate", PASSWORD, "litellm"), ...w]);
    expect(comparable(db.stdout)).toEqual(comparable(file.stdout));
    expect(JSON.parse(db.stdout).rows.outside_window).toBeGreaterThan(20_000);
  });

  test("text output names the database without the password", () => {
    const db = run(["--litellm-db", pg.url("kvgate", PASSWORD, "litellm")]);
    expect(db.code).toBe(0);
    expect(db.stdout).toContain(`kvgate usage: postgresql://kvgate@127.0.0.1:${pg.port}/litellm`);
    expect(db.stdout).toMatch(/gen-small \(vllm\): 22,396 calls/);
  });

  describe("failures are exit 2, say what to fix, and never show the password", () => {
    const cases: [string, () => string, RegExp][] = [
      [
        "a wrong password",
        () => pg.url("kvgate", "not-the-password", "litellm"),
        /refused the login: .*password authentication failed for user "kvgate"[\s\S]*fix: fix the user and password/,
      ],
      [
        "a refused connection",
        () => `postgresql://kvgate:${encodeURIComponent(PASSWORD)}@127.0.0.1:1/litellm`,
        /cannot connect to PostgreSQL at postgresql:\/\/kvgate@127\.0\.0\.1:1\/litellm: connection refused[\s\S]*fix: start the server, or fix the host and port/,
      ],
      [
        "a database without the table",
        () => pg.url("kvgate", PASSWORD, "empty"),
        /no table "LiteLLM_SpendLogs"[\s\S]*fix: point --litellm-db at LiteLLM's database/,
      ],
      [
        "a database that does not exist",
        () => pg.url("kvgate", PASSWORD, "nodb"),
        /database "nodb" does not exist[\s\S]*fix: name LiteLLM's database/,
      ],
      ["a table without model_group", () => pg.url("kvgate", PASSWORD, "old"), /"LiteLLM_SpendLogs" lacks model_group, metadata/],
      ["not a URL", () => `kvgate:${PASSWORD}@localhost`, /--litellm-db must be a postgresql:\/\/ URL|--litellm-db is not a URL/],
      [
        "another scheme",
        () => `mysql://kvgate:${encodeURIComponent(PASSWORD)}@localhost/litellm`,
        /--litellm-db must be a postgresql:\/\/ URL \(got mysql:\/\/…\)/,
      ],
    ];
    test.each(cases)("%s", (_, url, message) => {
      for (const env of [{}, { KVGATE_DEBUG: "1" }] as Record<string, string>[]) {
        const r = run(["--litellm-db", url()], env);
        expect(r.code).toBe(2);
        expect(r.stderr).toMatch(message);
        expect(r.stdout + r.stderr).not.toContain(PASSWORD);
        expect(r.stdout + r.stderr).not.toContain(encodeURIComponent(PASSWORD));
      }
    });
  });
});
