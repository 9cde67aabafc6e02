// Issue 30 items 1–3 and the engines' own KV evidence, on LiteLLM's real formats (./litellm-rows.ts):
// each case's rows are read as the API's JSON lines, as a JSON array, newest first, as the CSV psql's
// own `\copy … TO` writes from LiteLLM's table, and from that table (--litellm-db); every path must
// give the same report, and the figures worked by hand.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { makeRepo, type TempRepo } from "../helpers/repo.js";
import { kvgate, ROOT } from "../helpers/cli.js";
import { NO_POSTGRES, startPostgres, type PgServer } from "../helpers/postgres.js";
import { GiB } from "../../src/units/bytes.js";
import { COPY_COLUMNS, copyCsv, jsonArray, jsonLines, type RowSpec } from "./litellm-rows.js";
import { vllmRange } from "../observe/formats.js";

const lines = (...l: string[]): string => l.join("\n") + "\n";
const seat = (cap: number | null, pin: string, extra = "") =>
  lines(
    "ENGINE=vllm",
    "HOST=fv-ml1",
    "GPU=0",
    "MODEL=Qwen/Qwen3-8B",
    "MAX_MODEL_LEN=32768",
    `KV_CACHE_MEMORY_BYTES=${pin}`,
    cap === null ? "" : `SERVE_ARGS="--override-generation-config '{\\"max_new_tokens\\":${cap}}'${extra}"`,
  );

// Item 1: a seat capped at 8,192; six replies that stopped at the cap overlap on [5, 100): prompts
// 4,000 + 4,100 + 4,200 + 4,300 + 4,500 + 5,149 = 26,249, + 6 × 8,192 = 75,401 tokens in flight.
const capped: RowSpec[] = [
  ...[4000, 4100, 4200, 4300, 4500, 5149].map((p, i) => ({
    id: `chatcmpl-cap-${i}`,
    group: "capped",
    prompt: p,
    completion: 8192,
    start: i,
    end: 100,
  })),
  { id: "chatcmpl-cap-6", group: "capped", prompt: 1000, completion: 500, start: 200, end: 210 },
  { id: "chatcmpl-cap-7", group: "capped", prompt: 2000, completion: 700, start: 300, end: 320 },
];

// Item 2: 30 served calls (28 alone, two overlapping to 6,000 + 5,500 = 11,500), a cache hit of 6,500
// inside that overlap, and 5 failures: 3 context-length refusals (asking 9,500, 8,800, 12,000 of 8,192).
const vllmSays = (asked: string) =>
  `litellm.ContextWindowExceededError: litellm.BadRequestError: Hosted_vllmException - This model's maximum context length is 8192 tokens. However, ${asked}. Please reduce the length of the messages or completion.`;
const ctx: RowSpec[] = [
  ...Array.from({ length: 28 }, (_, i) => ({
    id: `chatcmpl-ctx-${i}`,
    group: "ctx",
    prompt: 1000 + 10 * i,
    completion: 200,
    start: 1000 + 100 * i,
    end: 1050 + 100 * i,
  })),
  { id: "chatcmpl-ctx-a", group: "ctx", prompt: 5000, completion: 1000, start: 5000, end: 5100 },
  { id: "chatcmpl-ctx-b", group: "ctx", prompt: 4500, completion: 1000, start: 5050, end: 5150 },
  { id: "chatcmpl-ctx-a", group: "ctx", prompt: 6000, completion: 500, start: 5060, end: 5061, cacheHit: true },
  {
    id: "f-1",
    group: "ctx",
    prompt: 0,
    completion: 0,
    start: 6000,
    end: 6000,
    failure: {
      cls: "ContextWindowExceededError",
      message: vllmSays("you requested 9500 tokens (7452 in the messages, 2048 in the completion)"),
    },
  },
  {
    id: "f-2",
    group: "ctx",
    prompt: 0,
    completion: 0,
    start: 6100,
    end: 6100,
    failure: { cls: "BadRequestError", message: vllmSays("your request has 8800 input tokens") },
  },
  {
    id: "f-3",
    group: "ctx",
    prompt: 0,
    completion: 0,
    start: 6200,
    end: 6200,
    failure: {
      cls: "ContextWindowExceededError",
      message: vllmSays("you requested 12000 tokens (10000 in the messages, 2000 in the completion)"),
    },
  },
  {
    id: "f-4",
    group: "ctx",
    prompt: 0,
    completion: 0,
    start: 6300,
    end: 6301,
    failure: { cls: "RateLimitError", code: "429", message: "litellm.RateLimitError: Hosted_vllmException - rate limited" },
  },
  {
    id: "f-5",
    group: "ctx",
    prompt: 0,
    completion: 0,
    start: 6400,
    end: 6402,
    failure: {
      cls: "InternalServerError",
      code: "500",
      message: "litellm.InternalServerError: Hosted_vllmException - Engine loop has died",
    },
  },
];

// Item 3: one model group from two deployments: fv-ml1 [0,100) 1,000 and [50,150) 2,000 (its peak
// 3,000); fv-ml2 [60,160) 2,000. The group's peak is on [60, 100): 5,000.
const split: RowSpec[] = [
  { id: "chatcmpl-split-1", group: "split", prompt: 800, completion: 200, start: 7000, end: 7100, apiBase: "http://fv-ml1:8001/v1" },
  { id: "chatcmpl-split-2", group: "split", prompt: 1500, completion: 500, start: 7050, end: 7150, apiBase: "http://fv-ml1:8001/v1" },
  { id: "chatcmpl-split-3", group: "split", prompt: 1500, completion: 500, start: 7060, end: 7160, apiBase: "http://fv-ml2:8001/v1" },
];

// Item 3: 3 requests; 40 calls in one hour (a start every 90 s: 58.5 minutes first to last).
const thin: RowSpec[] = [0, 1, 2].map((i) => ({
  id: `chatcmpl-thin-${i}`,
  group: "thin",
  prompt: 1000,
  completion: 100,
  start: 9000 + i * 60,
  end: 9010 + i * 60,
}));
const hourly: RowSpec[] = Array.from({ length: 40 }, (_, i) => ({
  id: `chatcmpl-hour-${i}`,
  group: "hourly",
  prompt: 2000,
  completion: 300,
  start: 10_000 + i * 90,
  end: 10_060 + i * 90,
}));

const ALL = [...capped, ...ctx, ...split, ...thin, ...hourly];
const LOW_FLOOR = ["--min-requests", "1", "--min-span", "1s"];

let repo: TempRepo;
let pg: PgServer | null = null;
beforeAll(async () => {
  repo = await makeRepo();
  repo.write(
    "kvgate.yaml",
    lines(
      "version: 1",
      "fleet:",
      "  hosts:",
      "    fv-ml1:",
      "      gpus:",
      "        - { index: 0, total: 96GiB, reserve: 1GiB }",
      "kv: { factor: 1.25, round: 0.5GiB }",
    ),
  );
  repo.write("scripts/capped.env", seat(8192, "4GiB"));
  repo.write("scripts/ctx.env", seat(2048, "2GiB"));
  repo.write("scripts/split.env", seat(4096, "2GiB"));
  repo.write("scripts/thin.env", seat(4096, "2GiB"));
  repo.write("scripts/hourly.env", seat(4096, "2GiB"));
  repo.write("week.jsonl", jsonLines(ALL));
  repo.write("week.json", jsonArray(ALL));
  repo.write("newest-first.jsonl", jsonLines([...ALL].sort((a, b) => b.start - a.start)));
  repo.stage();
  repo.commit("fleet");
  if (!NO_POSTGRES) {
    pg = await startPostgres();
    pg.psql("CREATE DATABASE litellm");
    pg.psql("CREATE ROLE kvgate LOGIN PASSWORD 'kv-pw'");
    pg.psql(readFileSync(join(ROOT, "test", "helpers", "litellm-spendlogs.sql"), "utf8"), { db: "litellm" });
    pg.psql(`\\copy "LiteLLM_SpendLogs"(${COPY_COLUMNS}) FROM STDIN WITH (FORMAT csv, HEADER true)`, {
      db: "litellm",
      input: copyCsv(ALL),
    });
    pg.psql(`GRANT SELECT ON "LiteLLM_SpendLogs" TO kvgate`, { db: "litellm" });
    // The CSV psql itself writes from LiteLLM's table: every column, PostgreSQL's timestamps and jsonb text.
    repo.write(
      "psql.csv",
      pg.psql(`\\copy (SELECT * FROM "LiteLLM_SpendLogs" ORDER BY "startTime", request_id) TO STDOUT WITH (FORMAT csv, HEADER true)`, {
        db: "litellm",
      }),
    );
  }
}, 120_000);
afterAll(async () => {
  pg?.stop();
  await repo?.cleanup();
});

const usage = (args: string[]) => kvgate(["usage", ...args, "--format", "json"], { cwd: repo.dir });
type Service = Record<string, any>;

/** The report of every path, per service; all must agree. */
function reports(extra: string[]): Map<string, Service>[] {
  const sources = [
    ["--litellm", "week.jsonl"],
    ["--litellm", "week.json"],
    ["--litellm", "newest-first.jsonl"],
  ];
  if (pg) sources.push(["--litellm", "psql.csv"], ["--litellm-db", pg.url("kvgate", "kv-pw", "litellm")]);
  return sources.map((src) => {
    const r = usage([...src, ...extra]);
    expect(r.code, `${src.join(" ")}: ${r.stderr}`).toBe(0);
    return new Map((JSON.parse(r.stdout).services as Service[]).map((s) => [s.name, s]));
  });
}

let low: Map<string, Service>[];

describe("every path gives the same report", () => {
  test("JSON lines, JSON array, newest first, psql's CSV and the table itself", () => {
    low = reports(LOW_FLOOR);
    const [first, ...rest] = low;
    for (const other of rest) expect([...other.entries()]).toEqual([...(first as Map<string, Service>).entries()]);
  }, 60_000);
});

describe("issue 30 item 1: a seat whose cap is in force", () => {
  test("replies that stopped at the 8,192 cap stay in the peak: 75,401 tokens → KV 13 GiB by the contract's rule", () => {
    const s = (low[0] as Map<string, Service>).get("capped") as Service;
    expect(s).toMatchObject({
      calls: 8,
      cap_in_force: true,
      peak_inflight_tokens: 75_401,
      peak_inflight_tokens_without_runaways: 75_401,
      runaway_count: 6,
      runaway_threshold_tokens: 8192,
    });
    // ceil(1.25 × 75,401 × 147,456 B / 0.5 GiB) = ceil(25.89) = 26 × 0.5 GiB
    expect(s.recommended).toMatchObject({ kv_bytes: 13 * GiB, kv_for_peak_bytes: 13 * GiB, output_cap: 8192, max_model_len: 14_336 });
  });
});

describe("issue 30 item 2: what a spend row means", () => {
  test("5 failures are not calls (30, p50 1,140 not 1,120); 3 context-length refusals reported; a cache hit is not in flight (11,500 not 18,000)", () => {
    const s = (low[0] as Map<string, Service>).get("ctx") as Service;
    expect(s).toMatchObject({
      calls: 30,
      failed: 5,
      cache_hits: 1,
      context_errors: { count: 3, largest_request_tokens: 12_000, limit_tokens: 8192 },
      prompt_tokens: { p50: 1140, max: 5000 },
      peak_inflight_tokens: 11_500,
    });
    expect(s.recommended.notes).toContain(
      "3 requests were refused for context length (the largest asked 12000 tokens of 8192): not in the figures above; serving them needs max_model_len ≥ 12288",
    );
  });

  test("the text says so", () => {
    const t = kvgate(["usage", "--litellm", "week.jsonl", ...LOW_FLOOR], { cwd: repo.dir }).stdout;
    expect(t).toContain("ctx (vllm): 30 calls, 2026-10-01 08:16 → 2026-10-01 09:24 UTC (1.1 h)");
    expect(t).toContain("  not calls           5 failed, 1 cache hit (the engine served neither: not counted below)");
    expect(t).toContain(
      "  context errors      3 refused for context length, the largest asking 12,000 tokens of 8,192: max_model_len is too small for them",
    );
    expect(t).toMatch(/^kvgate usage: 1 file: \d+ rows, \d+ counted, 5 failed, 1 cache hits, 0 skipped, 0 outside the window; times UTC$/m);
  });
});

describe("issue 30 item 3: advice needs evidence, and says what it stands on", () => {
  test("below the floor (1,000 requests, 24 h by default): the traffic is reported, no advice", () => {
    const r = usage(["--litellm", "week.jsonl"]);
    const by = new Map((JSON.parse(r.stdout).services as Service[]).map((s) => [s.name, s]));
    expect(by.get("thin")).toMatchObject({
      calls: 3,
      recommended: null,
      advice_withheld:
        "only 3 requests (--min-requests 1000) over 0.0 h of traffic (--min-span 24.0 h): too little to size a seat from; lower the floor only if this traffic is the seat's whole story",
    });
    expect(by.get("hourly")).toMatchObject({ calls: 40, recommended: null, span_hours: 1 });
    expect(JSON.parse(r.stdout).evidence_floor).toEqual({ min_requests: 1000, min_span_hours: 24 });
    const text = kvgate(["usage", "--litellm", "week.jsonl"], { cwd: repo.dir }).stdout;
    expect(text).toContain(
      "recommended         nothing yet: only 40 requests (--min-requests 1000) over 1.0 h of traffic (--min-span 24.0 h)",
    );
  });

  test("the floor is the operator's: 40 calls over 58.5 minutes advise with --min-requests 40 --min-span 30m, not with --min-span 1h", () => {
    const get = (args: string[]) =>
      (JSON.parse(usage(["--litellm", "week.jsonl", ...args]).stdout).services as Service[]).find((s) => s.name === "hourly") as Service;
    expect(get(["--min-requests", "40", "--min-span", "1h"]).recommended).toBeNull();
    const advised = get(["--min-requests", "40", "--min-span", "30m"]);
    expect(advised.recommended.evidence).toEqual({
      requests: 40,
      span_hours: 1,
      max_model_len_from: "the largest prompt (p100, 2000 tokens) + the output cap",
      output_cap_from: "the seat's cap in force",
      kv_from: "the peak in flight, the replies at the cap included (2300 tokens; only replies above the cap left out)",
    });
  });

  test("one model group, two deployments: each deployment's calls and peak beside the group's, said in the advice", () => {
    const s = (low[0] as Map<string, Service>).get("split") as Service;
    expect(s.peak_inflight_tokens).toBe(5000);
    expect(s.deployments).toEqual([
      { deployment: "http://fv-ml1:8001/v1", calls: 2, peak_inflight_tokens: 3000 },
      { deployment: "http://fv-ml2:8001/v1", calls: 1, peak_inflight_tokens: 2000 },
    ]);
    expect(s.recommended.notes.join("\n")).toMatch(/2 deployments serve it .*: the figures are the whole group's/);
  });

  test.each([
    [["--min-requests", "many"], /--min-requests must be a whole number/],
    [["--min-span", "a day"], /--min-span must be a duration: a number and a unit/],
  ])("%j is a usage error", (args, message) => {
    const r = kvgate(["usage", "--litellm", "week.jsonl", ...args], { cwd: repo.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });
});

describe("the engines' own KV evidence beside the spend-log advice", () => {
  const T0 = Date.UTC(2026, 9, 1, 8, 0, 0);
  const metrics = vllmRange("capped", {
    kv: [0.7, 1, 1, 0.8].map((v, m) => [T0 + m * 60_000, v]),
    preemptions: [0, 2, 5, 5].map((v, m) => [T0 + m * 60_000, v]),
  });

  test("preempted at the 13 GiB the logs ask: usage advises one kv.round above (13.5 GiB), and says why; that advice answers kv/preempted", () => {
    repo.write("scripts/capped.env", seat(8192, "13GiB"));
    repo.write("vllm.json", metrics);
    const r = usage(["--litellm", "week.jsonl", "--metrics", "vllm.json", ...LOW_FLOOR]);
    expect(r.code, r.stderr).toBe(0);
    const s = (JSON.parse(r.stdout).services as Service[]).find((x) => x.name === "capped") as Service;
    expect(s.engine_evidence).toMatchObject({ source: "vllm.json", preemptions: 5, kv_bytes: 13 * GiB, peak_kv_usage: 1 });
    expect(s.recommended).toMatchObject({ kv_for_peak_bytes: 13 * GiB, kv_for_preemptions_bytes: 13.5 * GiB, kv_bytes: 13.5 * GiB });
    expect(s.recommended.notes[0]).toBe(
      "the engine preempted 5 requests (vllm.json, from 2026-10-01 08:00 UTC) at KV 13 GiB: vLLM ran out of KV blocks, so the seat needed more than it had",
    );
    const text = kvgate(["usage", "--litellm", "week.jsonl", "--metrics", "vllm.json", ...LOW_FLOOR], { cwd: repo.dir }).stdout;
    expect(text).toContain("  engine metrics      5 preemptions in 1 window, KV up to 100.0% full at KV 13 GiB (vllm.json)");
    expect(text).toContain("                      KV 13.5 GiB: one kv.round above the 13 GiB the engine preempted at");

    // The same evidence from the committed observed file, and the gate's view of it.
    repo.write("kvgate.yaml", readFileSync(join(repo.dir, "kvgate.yaml"), "utf8") + "observed: observed.yaml\n");
    expect(kvgate(["observe", "--metrics", "vllm.json", "--write", "observed.yaml"], { cwd: repo.dir }).code).toBe(0);
    const viaFile = (JSON.parse(usage(["--litellm", "week.jsonl", ...LOW_FLOOR]).stdout).services as Service[]).find(
      (x) => x.name === "capped",
    ) as Service;
    expect(viaFile.engine_evidence).toMatchObject({ source: "observed.yaml", preemptions: 5, kv_bytes: 13 * GiB });
    const warned = JSON.parse(kvgate(["check", "--all", "--format", "json"], { cwd: repo.dir }).stdout).findings.filter(
      (f: Service) => f.rule === "kv/preempted",
    );
    expect(warned).toHaveLength(1);
    // Apply usage's advice: the warning is answered.
    repo.write("scripts/capped.env", seat(8192, String(s.recommended.kv_bytes)));
    const after = JSON.parse(kvgate(["check", "--all", "--format", "json"], { cwd: repo.dir }).stdout).findings.filter(
      (f: Service) => f.rule === "kv/preempted",
    );
    expect(after).toEqual([]);
  });

  test("--metrics takes vLLM's metrics: GPU memory there is refused with where it goes", () => {
    repo.write("gpu.csv", "timestamp, index, memory.used [MiB], memory.total [MiB]\n2026/10/01 08:00:00.000, 0, 1000 MiB, 97887 MiB\n");
    const r = kvgate(["usage", "--litellm", "week.jsonl", "--metrics", "gpu.csv"], { cwd: repo.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/gpu\.csv \(nvidia-smi\) holds no vLLM metrics[\s\S]*GPU memory goes to kvgate observe/);
  });
});
