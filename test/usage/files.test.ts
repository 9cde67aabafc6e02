// The file path of `usage`: the three export formats give the same figures; bad rows are skipped and
// counted with file and line; a wrong or unreadable file is refused; an export in another order than
// time (newest first) gets the same in-flight peak through the sorted second pass.
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { join } from "node:path";
import { makeFolder, type TempFolder } from "../helpers/folder.js";
import { usageFromFiles, type FileUsage } from "../../src/usage/files.js";
import { ServiceMap } from "../../src/usage/services.js";
import { GateError } from "../../src/errors.js";

interface Row {
  request_id: string;
  api_key: string;
  model: string;
  model_group: string;
  prompt_tokens: number;
  completion_tokens: number;
  startTime: string;
  endTime: string;
  metadata: { user_api_key_alias: string };
}

const KEY = "0c6f5d61a4b1e2f3a4b5c6d7e8f90123456789abcdef0123456789abcdef99ff";
const at = (s: number): string => new Date(Date.UTC(2026, 9, 1) + s * 1000).toISOString();
function row(i: number, start: number, end: number, prompt: number, completion: number, group = "gen-small"): Row {
  return {
    request_id: `req-${i}`,
    api_key: KEY,
    model: `hosted_vllm/${group}`,
    model_group: group,
    prompt_tokens: prompt,
    completion_tokens: completion,
    startTime: at(start),
    endTime: at(end),
    metadata: { user_api_key_alias: "all-agents-local" },
  };
}

// gen-small: prompts 100, 200, 300, 400 and a runaway; voices: one request.
// In flight: [0,10) 100+10; [5,15) 200+20; [12,20) 300+30; [14,16) 400+40; runaway [1,30) 50+150,000.
// Without the runaway the peak is at [14,15): 220 + 330 + 440 = 990; with it, 990 + 150,050.
const ROWS: Row[] = [
  row(1, 0, 10, 100, 10),
  row(2, 5, 15, 200, 20),
  row(3, 12, 20, 300, 30),
  row(4, 14, 16, 400, 40),
  row(5, 1, 30, 50, 150_000),
  row(6, 3, 4, 70, 7, "voices"),
];

const csvOf = (rows: Row[]): string =>
  "request_id,api_key,model,model_group,prompt_tokens,completion_tokens,startTime,endTime,metadata\n" +
  rows
    .map((r) =>
      [
        r.request_id,
        r.api_key,
        r.model,
        r.model_group,
        r.prompt_tokens,
        r.completion_tokens,
        r.startTime,
        r.endTime,
        `"${JSON.stringify(r.metadata).replace(/"/g, '""')}"`,
      ].join(","),
    )
    .join("\n") +
  "\n";

let dir: TempFolder;
beforeEach(async () => {
  dir = await makeFolder();
});
afterEach(async () => {
  await dir.cleanup();
});

function run(files: string[], o: Partial<Parameters<typeof usageFromFiles>[0]> = {}): Promise<FileUsage> {
  return usageFromFiles({
    files: files.map((f) => join(dir.dir, f)),
    services: new ServiceMap({}),
    runawayThreshold: () => 100_000,
    since: null,
    until: null,
    ...o,
  });
}

describe("three formats, one answer", () => {
  test("JSON lines, a JSON array and CSV give the same figures, worked by hand", async () => {
    dir.write("a.jsonl", ROWS.map((r) => JSON.stringify(r)).join("\n") + "\n");
    dir.write("a.json", JSON.stringify(ROWS, null, 2));
    dir.write("a.csv", csvOf(ROWS));
    const [a, b, c] = await Promise.all([run(["a.jsonl"]), run(["a.json"]), run(["a.csv"])]);
    expect(b.figures).toEqual(a.figures);
    expect(c.figures).toEqual(a.figures);
    const g = a.figures.find((f) => f.name === "gen-small");
    expect(g).toMatchObject({
      calls: 5,
      // prompts 50 100 200 300 400: p50 rank 3 = 200, p99 rank 5 = 400
      prompt: { p50: 200, p99: 400, max: 400 },
      // completions 10 20 30 40 150,000: p50 rank 3 = 30, p99 rank 5 = 150,000
      completion: { p50: 30, p99: 150_000, max: 150_000 },
      peakWithoutRunaways: 990,
      peakAll: 990 + 150_050,
      maxCompletionWithoutRunaways: 40,
      runawayCount: 1,
      runawayKeys: [{ api_key: KEY, alias: "all-agents-local", count: 1, max_completion_tokens: 150_000 }],
    });
    expect(g?.runaways).toEqual([
      {
        request_id: "req-5",
        api_key: KEY,
        alias: "all-agents-local",
        prompt_tokens: 50,
        completion_tokens: 150_000,
        start_ms: Date.UTC(2026, 9, 1) + 1000,
      },
    ]);
    expect(a.counts).toEqual({ read: 6, used: 6, skipped: 0, outside: 0, failed: 0, cacheHits: 0 });
    expect(a.resorted).toEqual([]);
  });

  test("the seat's output cap makes a runaway too (threshold = the lower of the two)", async () => {
    dir.write("a.jsonl", ROWS.map((r) => JSON.stringify(r)).join("\n"));
    const r = await run(["a.jsonl"], { runawayThreshold: (s) => (s === "gen-small" ? 35 : 100_000) });
    const g = r.figures.find((f) => f.name === "gen-small");
    // 40 and 150,000 reach 35: without them, [5,15) 220 + [12,20) 330 = 550 on [12,15)
    expect(g).toMatchObject({ runawayCount: 2, runawayThreshold: 35, peakWithoutRunaways: 550, maxCompletionWithoutRunaways: 30 });
  });

  test("--since/--until keep the rows that start in the window; the others are counted as outside", async () => {
    dir.write("a.jsonl", ROWS.map((r) => JSON.stringify(r)).join("\n"));
    const r = await run(["a.jsonl"], { since: Date.UTC(2026, 9, 1) + 3000, until: Date.UTC(2026, 9, 1) + 14_000 });
    expect(r.counts).toEqual({ read: 6, used: 3, skipped: 0, outside: 3, failed: 0, cacheHits: 0 });
    expect(r.figures.map((f) => [f.name, f.calls])).toEqual([
      ["gen-small", 2],
      ["voices", 1],
    ]);
  });

  test("newest first (a UI export): the sweep notices and a sorted second pass gives the same peak", async () => {
    // Spread over a day so that the 6-hour reorder window cannot absorb the reversal.
    const many = Array.from({ length: 300 }, (_, i) => row(i, i * 600, i * 600 + 900, 100 + i, 10));
    dir.write("old-first.jsonl", many.map((r) => JSON.stringify(r)).join("\n"));
    dir.write(
      "new-first.jsonl",
      [...many]
        .reverse()
        .map((r) => JSON.stringify(r))
        .join("\n"),
    );
    const a = await run(["old-first.jsonl"]);
    const b = await run(["new-first.jsonl"]);
    expect(a.resorted).toEqual([]);
    expect(b.resorted).toEqual(["gen-small"]);
    // Each request overlaps only the next one (600 s apart, 900 s long): the last pair, 399+10 + 398+10.
    expect(a.figures[0]?.peakAll).toBe(399 + 10 + 398 + 10);
    expect(b.figures).toEqual(a.figures);
  });
});

describe("bad rows are skipped, counted, and shown with file and line", () => {
  test("JSON lines", async () => {
    const lines = [
      JSON.stringify(ROWS[0]),
      "{not json",
      JSON.stringify({ ...ROWS[1], prompt_tokens: -3 }),
      "",
      JSON.stringify(ROWS[2]),
      JSON.stringify({ ...ROWS[3], endTime: at(1) }),
    ];
    dir.write("a.jsonl", lines.join("\n"));
    const r = await run(["a.jsonl"]);
    expect(r.counts).toEqual({ read: 5, used: 2, skipped: 3, outside: 0, failed: 0, cacheHits: 0 });
    expect(r.problems.map((p) => [p.file.endsWith("a.jsonl"), p.line, p.reason.split(":")[0]])).toEqual([
      [true, 2, "not valid JSON"],
      [true, 3, "prompt_tokens"],
      [true, 6, `endTime ${at(1)} is before startTime ${at(14)}`.split(":")[0]],
    ]);
  });

  test("a JSON array cut short loses its last row, counted", async () => {
    dir.write("a.json", JSON.stringify(ROWS, null, 1).slice(0, -40));
    const r = await run(["a.json"]);
    expect(r.counts.skipped).toBe(1);
    expect(r.problems[0]?.reason).toMatch(/ends inside this row/);
    expect(r.counts.used).toBe(5);
  });

  test("CSV: a row with a bad number and a row with missing columns", async () => {
    const text = csvOf(ROWS.slice(0, 3)).replace(",200,20,", ",2x0,20,") + "req-9,k,m\n";
    dir.write("a.csv", text);
    const r = await run(["a.csv"]);
    expect(r.counts).toEqual({ read: 4, used: 2, skipped: 2, outside: 0, failed: 0, cacheHits: 0 });
    expect(r.problems.map((p) => [p.line, p.reason])).toEqual([
      [3, 'prompt_tokens: expected a whole number of tokens ≥ 0, got "2x0"'],
      [5, "prompt_tokens is missing"],
    ]);
  });
});

describe("files that are not spend logs are refused (exit 2)", () => {
  const refused = async (files: string[], message: RegExp): Promise<void> => {
    const e = await run(files).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(GateError);
    expect((e as GateError).message).toMatch(message);
  };
  test("missing, a folder, empty", async () => {
    dir.write("empty.jsonl", "  \n");
    dir.write("sub/x", "");
    await refused(["nope.jsonl"], /cannot read .*nope\.jsonl: no such file/);
    await refused(["sub"], /cannot read .*sub: a folder/);
    await refused(["empty.jsonl"], /empty\.jsonl is empty/);
  });
  test("CSV without the spend-log columns names what it lacks, at line 1", async () => {
    dir.write("a.csv", "id,name\n1,x\n");
    await refused(
      ["a.csv"],
      /a\.csv:1: not a LiteLLM spend-log export: the header lacks prompt_tokens, completion_tokens, startTime, endTime, model_group, model/,
    );
  });
  test("a pretty-printed API response is not JSON lines: the message says how to take its rows", async () => {
    dir.write("a.json", JSON.stringify({ data: ROWS, total: 6 }, null, 2));
    await refused(["a.json"], /a\.json:1: the first line is not a whole JSON object/);
  });
  test("JSON lines of which no row can be used", async () => {
    dir.write("a.jsonl", '{"x": 1}\n{"y": 2}\n');
    await refused(["a.jsonl"], /none of its 2 rows can be used \(line 1: prompt_tokens is missing\)/);
  });
  test("an unclosed CSV quote would swallow every later row: refused at the line it opens", async () => {
    const line = (i: number): string => `r${i},k,m,g,1,2,${at(i)},${at(i + 1)}`;
    dir.write(
      "a.csv",
      [
        "request_id,api_key,model,model_group,prompt_tokens,completion_tokens,startTime,endTime",
        line(1),
        'r2,"open quote,x',
        line(3),
        line(4),
      ].join("\n"),
    );
    await refused(["a.csv"], /a\.csv:3: a quote opened on this line is never closed/);
  });
});
