// `kvgate usage` end to end: the built CLI on a generated week of the example fleet's spend logs
// (bench/gen-spend-logs.mjs), which must print the seeds' gen-small figures: 22,396 calls, p99 prompt
// ≈ 4.5k, peak in flight ≈ 24.5k tokens without the runaways, 9 runaway replies of ≈ 260k tokens
// from one key. The numbers are checked against a brute-force count over the same rows.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { makeFolder, type TempFolder } from "../helpers/repo.js";
import { kvgate, ROOT } from "../helpers/cli.js";
import { percentileOf } from "../../src/usage/histogram.js";
import { peakOfIntervals } from "../../src/usage/inflight.js";

const FLEET = join(ROOT, "examples", "fleet");
let dir: TempFolder;
let rows: { api_key: string; model_group: string; prompt_tokens: number; completion_tokens: number; startTime: string; endTime: string }[];

beforeAll(async () => {
  dir = await makeFolder();
  for (const format of ["jsonl", "csv"]) {
    execFileSync(
      process.execPath,
      [join(ROOT, "bench", "gen-spend-logs.mjs"), "--format", format, "--out", join(dir.dir, `week.${format}`)],
      { stdio: "ignore" },
    );
  }
  rows = readFileSync(join(dir.dir, "week.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
}, 60_000);
afterAll(async () => {
  await dir.cleanup();
});

const usage = (args: string[]) => kvgate(["usage", ...args, "--repo", FLEET], { cwd: dir.dir });

describe("the generated week reproduces the seeds' gen-small figures", () => {
  test("by brute force over the rows, first (what the CLI must print)", () => {
    const g = rows.filter((r) => r.model_group === "gen-small");
    const runaways = g.filter((r) => r.completion_tokens >= 32_768);
    const sans = g
      .filter((r) => r.completion_tokens < 32_768)
      .map((r) => ({ start: Date.parse(r.startTime), end: Date.parse(r.endTime), tokens: r.prompt_tokens + r.completion_tokens }));
    expect(g).toHaveLength(22_396);
    const p99 = percentileOf(
      g.map((r) => r.prompt_tokens),
      99,
    ) as number;
    expect(Math.abs(p99 - 4_500)).toBeLessThan(150);
    expect(Math.abs(peakOfIntervals(sans) - 24_500)).toBeLessThan(500);
    expect(runaways).toHaveLength(9);
    for (const r of runaways) expect(Math.abs(r.completion_tokens - 260_000)).toBeLessThan(5_000);
    expect(new Set(runaways.map((r) => r.api_key)).size).toBe(1);
  });

  test("usage --format json gives exactly the brute-force numbers", () => {
    const r = usage(["--litellm", join(dir.dir, "week.jsonl"), "--format", "json"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    const g = JSON.parse(r.stdout).services.find((s: { name: string }) => s.name === "gen-small");
    const mine = rows.filter((x) => x.model_group === "gen-small");
    const sans = mine.filter((x) => x.completion_tokens < 32_768);
    const span = (xs: typeof rows) =>
      xs.map((x) => ({ start: Date.parse(x.startTime), end: Date.parse(x.endTime), tokens: x.prompt_tokens + x.completion_tokens }));
    expect(g).toMatchObject({
      name: "gen-small",
      engine: "vllm",
      calls: 22_396,
      prompt_tokens: {
        p50: percentileOf(
          mine.map((x) => x.prompt_tokens),
          50,
        ),
        p99: percentileOf(
          mine.map((x) => x.prompt_tokens),
          99,
        ),
        max: Math.max(...mine.map((x) => x.prompt_tokens)),
      },
      completion_tokens: {
        p50: percentileOf(
          mine.map((x) => x.completion_tokens),
          50,
        ),
        p99: percentileOf(
          mine.map((x) => x.completion_tokens),
          99,
        ),
        max: Math.max(...mine.map((x) => x.completion_tokens)),
      },
      peak_inflight_tokens: peakOfIntervals(span(mine)),
      peak_inflight_tokens_without_runaways: peakOfIntervals(span(sans)),
      // the seat's output cap (32,768) is below usage.runaway_tokens (100,000): it is the threshold
      runaway_threshold_tokens: 32_768,
      runaway_count: 9,
      current: { max_model_len: 32_768, kv_pinned_bytes: 5_905_580_032, output_cap: 32_768 },
    });
    expect(g.runaway_keys).toEqual([
      {
        key: expect.stringMatching(/^[0-9a-f]{4}…[0-9a-f]{2}$/),
        key_fingerprint: expect.stringMatching(/^sha256:[0-9a-f]{12}$/),
        key_alias: "all-agents-local",
        count: 9,
        max_completion_tokens: g.completion_tokens.max,
      },
    ]);
    expect(g.recommended).toMatchObject({ output_cap: 32_768, output_cap_source: "seat", bytes_per_token: 147_456, factor: 1.25 });
  });

  test("the text report prints them, and not one raw key", () => {
    const r = usage(["--litellm", join(dir.dir, "week.jsonl")]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("kvgate usage: 1 file: 37,094 rows, 37,094 counted, 0 skipped, 0 outside the window; times UTC");
    expect(r.stdout).toMatch(/gen-small \(vllm\): 22,396 calls, 2026-09-28 00:00 → 2026-10-04 23:5\d/);
    expect(r.stdout).toMatch(/prompt tokens {7}p50 902 {3}p99 4,438 {3}max 15,600/);
    // The seat's cap (32,768) is in force: the replies above it (written before it) are left out.
    expect(r.stdout).toMatch(/peak in flight {6}24,595 tokens without the replies above the cap \(277,342 with them\)/);
    expect(r.stdout).toMatch(
      /runaways {12}9 replies ≥ 32,768 tokens, up to 261,816; by key:\n {24}[0-9a-f]{4}…[0-9a-f]{2} sha256:[0-9a-f]{12} \(all-agents-local\): 9, up to 261,816/,
    );
    expect(r.stdout).toMatch(/sec: 400 calls/);
    expect(r.stdout).toMatch(/no service of that name in the working tree/);
    for (const key of new Set(rows.map((x) => x.api_key))) expect(r.stdout).not.toContain(key);
  });

  test("the CSV export gives the same report", () => {
    const a = JSON.parse(usage(["--litellm", join(dir.dir, "week.jsonl"), "--format", "json"]).stdout);
    const b = JSON.parse(usage(["--litellm", join(dir.dir, "week.csv"), "--format", "json"]).stdout);
    delete a.source;
    delete b.source;
    expect(b).toEqual(a);
  });
});

describe("bad input", () => {
  test("bad rows: exit 0, counted, named on stderr and listed with file and line", () => {
    const lines = readFileSync(join(dir.dir, "week.jsonl"), "utf8").split("\n").slice(0, 50);
    lines.splice(10, 0, '{"request_id": "x", "prompt_tokens": "lots"}');
    dir.write("some-bad.jsonl", lines.join("\n"));
    const r = usage(["--litellm", join(dir.dir, "some-bad.jsonl")]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('kvgate usage: 1 row skipped (see "problems" below)\n');
    expect(r.stdout).toContain("1 row was skipped (not counted anywhere):");
    expect(r.stdout).toMatch(/some-bad\.jsonl:11: prompt_tokens: expected a whole number of tokens ≥ 0, got "lots"/);
  });

  test.each([
    [["--litellm", "missing.jsonl"], /cannot read missing\.jsonl: no such file/],
    [[], /name LiteLLM spend logs: --litellm FILE\.\.\./],
    [["week.jsonl"], /unexpected argument "week\.jsonl": name the exports with --litellm FILE\.\.\./],
    [["--litellm", "week.jsonl", "--litellm-db", "postgresql://x@localhost/db"], /give --litellm FILE\.\.\. or --litellm-db URL, not both/],
    [["--litellm", "week.jsonl", "--since", "last week"], /--since must be a date or an ISO timestamp/],
    [["--litellm", "week.jsonl", "--since", "2026-10-02", "--until", "2026-10-01"], /--until must be after --since/],
    [["--litellm", "week.jsonl", "--format", "sarif"], /--format must be one of text, json[\s\S]*usage: kvgate usage/],
    [["--litellm", "week.jsonl", "--bogus"], /Unknown option '--bogus'/],
  ])("%j → exit 2: %s", (args, message) => {
    const r = usage(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe("");
  });

  test("usage errors print usage's own usage line", () => {
    expect(usage([]).stderr).toContain("usage: kvgate usage (--litellm FILE... | --litellm-db postgresql://…)");
  });

  test("several files add up; --since/--until cut by startTime", () => {
    const all = readFileSync(join(dir.dir, "week.jsonl"), "utf8").trim().split("\n");
    dir.write("first.jsonl", all.slice(0, 20_000).join("\n"));
    dir.write("second.jsonl", all.slice(20_000).join("\n"));
    const split = JSON.parse(usage(["--litellm", join(dir.dir, "first.jsonl"), join(dir.dir, "second.jsonl"), "--format", "json"]).stdout);
    const whole = JSON.parse(usage(["--litellm", join(dir.dir, "week.jsonl"), "--format", "json"]).stdout);
    expect(split.services).toEqual(whole.services);
    const day = JSON.parse(
      usage(["--litellm", join(dir.dir, "week.jsonl"), "--since", "2026-10-01", "--until", "2026-10-02", "--format", "json"]).stdout,
    );
    const inDay = rows.filter((x) => x.startTime >= "2026-10-01" && x.startTime < "2026-10-02");
    expect(day.rows).toMatchObject({ used: inDay.length, outside_window: rows.length - inDay.length });
    expect(day.since).toBe("2026-10-01T00:00:00.000Z");
  });
});
