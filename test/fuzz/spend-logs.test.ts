// Fuzzing the spend-log readers of `usage`: any record gives a row or a sentence why not, never a
// throw; any file (JSON lines, a JSON array, CSV — well-formed, truncated, or noise) is read to its end
// or refused with a GateError naming it, never another exception, never a hang (each run is bounded by
// the test's timeout); CSV fields come back as written, whatever quotes, commas and newlines they hold.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import fc from "fast-check";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readSpendFile } from "../../src/usage/read.js";
import { readCsvRecords } from "../../src/usage/csv.js";
import { contextErrorOf, spendRowOf } from "../../src/usage/row.js";
import { GateError } from "../../src/errors.js";
import { RUNS } from "./arbitraries.js";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "kvgate-fuzz-spend-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const time = fc.oneof(
  fc.integer({ min: 0, max: Date.UTC(2030, 0, 1) }).map((t) => new Date(t).toISOString()),
  fc.constantFrom("2026-10-01 08:00:00.123", "2026/10/01 08:00:00", "2026-02-30T00:00:00Z", "yesterday", "", "2026-10-01T25:00:00Z"),
  fc.string({ maxLength: 8 }),
);
const tokens = fc.oneof(fc.nat(300_000), fc.constantFrom(-1, 1.5, "12", "1e3", "", null), fc.string({ maxLength: 4 }));
const metadata = fc.oneof(
  fc.constant({}),
  fc.record({ user_api_key_alias: fc.string({ maxLength: 6 }), status: fc.constantFrom("success", "failure") }),
  fc.record({
    status: fc.constant("failure"),
    error_information: fc.record({
      error_class: fc.constantFrom("ContextWindowExceededError", "BadRequestError", null),
      error_message: fc.oneof(
        fc.string({ maxLength: 30 }),
        fc.constantFrom("This model's maximum context length is 8192 tokens. However, you requested 9500 tokens"),
      ),
    }),
  }),
  fc.string({ maxLength: 20 }),
  fc.constant(null),
);
const record = fc.record(
  {
    request_id: fc.string({ maxLength: 8 }),
    api_key: fc.string({ maxLength: 8 }),
    model: fc.string({ maxLength: 6 }),
    model_group: fc.string({ maxLength: 6 }),
    api_base: fc.string({ maxLength: 6 }),
    prompt_tokens: tokens,
    completion_tokens: tokens,
    startTime: time,
    endTime: time,
    status: fc.constantFrom("success", "failure", "", "weird"),
    cache_hit: fc.constantFrom("True", "False", true, false, "1", null),
    metadata,
  },
  { requiredKeys: [] },
);

describe("a record is a row or a reason", () => {
  test("spendRowOf and contextErrorOf never throw; a row is consistent", () => {
    fc.assert(
      fc.property(fc.oneof(record, fc.anything()), (rec) => {
        const r = spendRowOf(rec);
        if (typeof r === "string") {
          expect(r.length).toBeGreaterThan(0);
          return;
        }
        expect(Number.isSafeInteger(r.prompt) && r.prompt >= 0).toBe(true);
        expect(Number.isSafeInteger(r.completion) && r.completion >= 0).toBe(true);
        expect(r.end).toBeGreaterThanOrEqual(r.start);
        expect(r.modelGroup !== "" || r.model !== "").toBe(true);
        expect(r.failed && r.cacheHit).toBe(false);
        const ce = contextErrorOf(r.metadata);
        if (ce) expect(ce.asked === null || ce.asked >= 0).toBe(true);
      }),
      { numRuns: RUNS.cheap },
    );
  });
});

const csvField = fc.oneof(
  fc.string({ maxLength: 10 }),
  fc.constantFrom('a"b', "x,y", "l1\nl2", "l1\r\nl2", '""', "", " ", '{"k": "v, w"}'),
);
const q = (s: string): string => (/[",\r\n]/.test(s) || s === "" ? `"${s.replace(/"/g, '""')}"` : s);

/** Text of any of the three export shapes, whole or broken. */
const exportText = fc.oneof(
  fc.array(record, { maxLength: 8 }).map((rs) => rs.map((r) => JSON.stringify(r)).join("\n")),
  fc.array(record, { maxLength: 8 }).map((rs) => JSON.stringify(rs, null, 1)),
  fc.tuple(fc.array(record, { maxLength: 8 }), fc.nat(400)).map(([rs, cut]) => JSON.stringify(rs).slice(0, cut)),
  fc
    .array(fc.array(csvField, { maxLength: 6 }), { maxLength: 6 })
    .map(
      (rows) =>
        "request_id,model_group,prompt_tokens,completion_tokens,startTime,endTime\n" + rows.map((r) => r.map(q).join(",")).join("\n"),
    ),
  fc
    .tuple(fc.array(csvField, { maxLength: 6 }), fc.nat(60))
    .map(([r, cut]) => ("model,prompt_tokens,completion_tokens,startTime,endTime\n" + r.map(q).join(",")).slice(0, cut + 40)),
  fc.string({ maxLength: 200 }),
  fc.string({ maxLength: 200, unit: "binary" }),
);

describe("a file is read or refused, never crashes or hangs", () => {
  test("readSpendFile on any export-shaped text", async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(exportText, async (text) => {
        const file = join(dir, `f${n++}`);
        writeFileSync(file, text);
        try {
          await readSpendFile(file, {
            record(rec, line) {
              expect(line).toBeGreaterThanOrEqual(1);
              const r = spendRowOf(rec);
              expect(typeof r === "string" || r.prompt >= 0).toBe(true);
            },
            bad(line, reason) {
              expect(line === null || line >= 1).toBe(true);
              expect(reason.length).toBeGreaterThan(0);
            },
          });
        } catch (e) {
          if (!(e instanceof GateError)) throw new Error(`not a GateError: ${(e as Error)?.stack ?? String(e)}`, { cause: e });
          expect(e.message).toContain(file);
        }
      }),
      { numRuns: RUNS.medium },
    );
  }, 60_000);

  test("CSV fields come back as written: quotes, commas, CR LF and newlines inside", async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(csvField, { minLength: 3, maxLength: 3 }), { minLength: 1, maxLength: 6 }),
        fc.constantFrom("\n", "\r\n"),
        async (rows, eol) => {
          const file = join(dir, `c${n++}.csv`);
          writeFileSync(file, ["a,b,c", ...rows.map((r) => r.map(q).join(","))].join(eol) + eol);
          const got: Record<string, string>[] = [];
          await readCsvRecords(file, { columns: ["a", "b", "c"], header: () => {}, record: (f) => got.push(f) });
          expect(got).toEqual(rows.map(([a, b, c]) => ({ a, b, c })));
        },
      ),
      { numRuns: RUNS.medium },
    );
  }, 60_000);
});
