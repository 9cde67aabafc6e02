// The in-flight peak (contract section 16): the largest sum of prompt + completion tokens over requests
// in flight at one instant, each in flight on [startTime, endTime). Hand-worked tables, then the
// streaming tracker and the external sort against the in-memory reference.
import { describe, expect, test } from "vitest";
import fc from "fast-check";
import { InflightPeak, peakOfIntervals } from "../../src/usage/inflight.js";
import { existsSync } from "node:fs";
import { SpillSweep, who } from "../../src/usage/spill.js";
import { UsageAggregator } from "../../src/usage/aggregate.js";
import { ServiceMap } from "../../src/usage/services.js";
import { emptyRow } from "../../src/usage/row.js";

type Req = { start: number; end: number; tokens: number };
const r = (start: number, end: number, tokens: number): Req => ({ start, end, tokens });

function streamed(reqs: Req[], windowMs = 1000): number | null {
  const t = new InflightPeak(windowMs);
  for (const q of reqs) t.add(q.start, q.end, q.tokens);
  return t.finish()?.all ?? null;
}

function spilled(reqs: Req[], chunk = 4): { peak: number; runs: number; folder: string } {
  const s = new SpillSweep(1, 0, chunk);
  for (const q of reqs) s.add(q.start, q.end, q.tokens, who(0, -1, false));
  const runs = s.spilled;
  return { peak: s.finish().all[0] as number, runs, folder: s.folder };
}

const TABLE: { name: string; reqs: Req[]; peak: number }[] = [
  { name: "two overlapping: 100 + 200 in flight on [5, 10)", reqs: [r(0, 10, 100), r(5, 15, 200)], peak: 300 },
  { name: "touching: the first ends at 10 as the second starts, never both", reqs: [r(0, 10, 100), r(10, 20, 200)], peak: 200 },
  { name: "touching the other way round in the input", reqs: [r(10, 20, 200), r(0, 10, 100)], peak: 200 },
  { name: "a zero-length request is in flight at no instant", reqs: [r(5, 5, 1000), r(0, 3, 10)], peak: 10 },
  { name: "same start: both count at that instant", reqs: [r(0, 5, 10), r(0, 3, 20)], peak: 30 },
  { name: "one ends as two start: 30 + 40 after it, not 100 + 30 + 40", reqs: [r(0, 5, 100), r(5, 6, 30), r(5, 7, 40)], peak: 100 },
  {
    // [0,100) 50 throughout; [10,20) 30; [15,18) 20 → 100 on [15,18); [19,30) 40 → 50 + 30 + 40 = 120 on [19,20)
    name: "nested and chained: 120 on [19, 20)",
    reqs: [r(0, 100, 50), r(10, 20, 30), r(15, 18, 20), r(19, 30, 40)],
    peak: 120,
  },
  { name: "disjoint: the largest single request", reqs: [r(0, 1, 5), r(2, 3, 9), r(4, 5, 7)], peak: 9 },
  { name: "nothing", reqs: [], peak: 0 },
];

describe("in-flight peak, by hand", () => {
  test.each(TABLE)("$name → $peak", ({ reqs, peak }) => {
    expect(peakOfIntervals(reqs)).toBe(peak);
    const sorted = [...reqs].sort((a, b) => a.start - b.start);
    expect(streamed(sorted)).toBe(peak);
    expect(spilled(reqs).peak).toBe(peak);
    expect(spilled(reqs, 1 << 10).peak).toBe(peak);
  });
});

describe("the streaming tracker", () => {
  test("rows out of order by less than the window are re-ordered: same peak", () => {
    // Rows in end order (as LiteLLM writes them): the long one lands last though it started first.
    const rows = [r(10, 20, 30), r(12, 25, 40), r(0, 30, 100)];
    expect(streamed(rows, 50)).toBe(170);
  });

  test("a row that starts before one already swept says the input is not in order, instead of a wrong peak", () => {
    const t = new InflightPeak(10_000);
    t.add(100_000, 105_000, 1);
    t.add(200_000, 205_000, 1); // 100 s is more than the 10 s window behind 200 s: swept
    expect(t.ordered).toBe(true);
    t.add(50_000, 60_000, 1); // starts before 100 s, already swept: a sweep can no longer be exact
    expect(t.ordered).toBe(false);
    expect(t.finish()).toBeNull();
  });

  test("memory: it holds the rows of one window plus those in flight, not every row", () => {
    const t = new InflightPeak(60_000);
    // 200,000 one-second requests, one every 100 ms: about 600 in a one-minute window, 10 in flight.
    for (let i = 0; i < 200_000; i++) t.add(i * 100, i * 100 + 1000, 1);
    expect(t.finish()).toEqual({ all: 10, withoutRunaways: 10 });
    expect(t.heldPeak).toBeLessThan(700);
  });

  test("rows in end order (LiteLLM's insert order), spread over many one-second buckets, with runaways: both sums exact", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.integer({ min: 0, max: 3_600_000 }),
            fc.integer({ min: 0, max: 120_000 }),
            fc.integer({ min: 1, max: 5000 }),
            fc.boolean(),
          ),
          { maxLength: 300 },
        ),
        (xs) => {
          const reqs = xs.map(([s, d, t, runaway]) => ({ ...r(s, s + d, t), runaway })).sort((a, b) => a.end - b.end);
          const t = new InflightPeak(150_000); // longer than any request: end order is within the window
          for (const q of reqs) t.add(q.start, q.end, q.tokens, q.runaway);
          expect(t.ordered).toBe(true);
          expect(t.finish()).toEqual({ all: peakOfIntervals(reqs), withoutRunaways: peakOfIntervals(reqs.filter((q) => !q.runaway)) });
        },
      ),
      { numRuns: 300 },
    );
  });

  test("the first rows may come in any order within the window; a start far ahead sweeps everything before it", () => {
    const t = new InflightPeak(60_000);
    t.add(30_000, 40_000, 5);
    t.add(10_000, 35_000, 7); // earlier than the first row: still waiting, still in order
    t.add(5_000_000, 5_000_001, 1); // 83 minutes on: both are swept, oldest first
    t.add(4_990_000, 5_000_500, 2); // within the window of the latest start
    expect(t.ordered).toBe(true);
    expect(t.finish()).toEqual({ all: 12, withoutRunaways: 12 });
  });

  test("equals the reference for any requests given in start order", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 500 }), fc.integer({ min: 0, max: 80 }), fc.integer({ min: 1, max: 1000 })), {
          maxLength: 200,
        }),
        (xs) => {
          const reqs = xs.map(([s, d, t]) => r(s, s + d, t)).sort((a, b) => a.start - b.start);
          expect(streamed(reqs, 5)).toBe(peakOfIntervals(reqs));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("the external sort (any order)", () => {
  test("equals the reference in any order, with the events spilled in runs of 16", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 500 }), fc.integer({ min: 0, max: 80 }), fc.integer({ min: 1, max: 1000 })), {
          maxLength: 200,
        }),
        (xs) => {
          const reqs = xs.map(([s, d, t]) => r(s, s + d, t));
          expect(spilled(reqs, 16).peak).toBe(peakOfIntervals(reqs));
        },
      ),
      { numRuns: 200 },
    );
  });

  test("runs go to disk once a chunk is full, and are removed after", () => {
    const reqs = Array.from({ length: 100 }, (_, i) => r(100 - i, 100 - i + 3, 1)); // newest first
    const { peak, runs, folder } = spilled(reqs, 16);
    expect(runs).toBeGreaterThan(5);
    expect(peak).toBe(3);
    expect(folder).toMatch(new RegExp(`kvgate-inflight-${process.pid}-`));
    expect(existsSync(folder)).toBe(false);
  });

  test("one sort for several services and deployments: each accumulator equals its own reference", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.integer({ min: 0, max: 300 }),
            fc.integer({ min: 0, max: 60 }),
            fc.integer({ min: 1, max: 1000 }),
            fc.integer({ min: 0, max: 2 }),
            fc.integer({ min: -1, max: 3 }),
            fc.boolean(),
          ),
          { maxLength: 150 },
        ),
        (xs) => {
          const s = new SpillSweep(3, 4, 16);
          for (const [st, d, t, svc, dep, cut] of xs) s.add(st, st + d, t, who(svc, dep, cut));
          const got = s.finish();
          for (let svc = 0; svc < 3; svc++) {
            const mine = xs.filter((x) => x[3] === svc).map(([st, d, t]) => r(st, st + d, t));
            const sans = xs.filter((x) => x[3] === svc && !x[5]).map(([st, d, t]) => r(st, st + d, t));
            expect(got.all[svc]).toBe(peakOfIntervals(mine));
            expect(got.sans[svc]).toBe(peakOfIntervals(sans));
          }
          for (let dep = 0; dep < 4; dep++) {
            expect(got.deployments[dep]).toBe(peakOfIntervals(xs.filter((x) => x[4] === dep).map(([st, d, t]) => r(st, st + d, t))));
          }
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe("per deployment", () => {
  test("a second deployment forks the service's tracker: each deployment's peak equals its reference, in start order", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.integer({ min: 0, max: 500 }),
            fc.integer({ min: 0, max: 80 }),
            fc.integer({ min: 1, max: 1000 }),
            fc.integer({ min: 0, max: 2 }),
          ),
          {
            maxLength: 120,
          },
        ),
        (xs) => {
          const rows = [...xs].sort((a, b) => a[0] - b[0]);
          const agg = new UsageAggregator({
            services: new ServiceMap({}),
            runawayThreshold: () => 1e9,
            since: null,
            until: null,
            windowMs: 1000,
          });
          for (const [st, d, t, dep] of rows) {
            const row = emptyRow();
            Object.assign(row, {
              modelGroup: "g",
              prompt: t,
              completion: 0,
              start: st * 1000,
              end: (st + d) * 1000,
              deployment: `d${dep}`,
            });
            agg.add(row);
          }
          if (rows.length === 0) return;
          const [f] = agg.figures();
          const deps = new Set(rows.map((x) => x[3]));
          if (deps.size < 2) {
            expect(f?.deployments).toEqual([]);
            return;
          }
          for (const dep of deps) {
            const mine = rows.filter((x) => x[3] === dep).map(([st, d, t]) => r(st * 1000, (st + d) * 1000, t));
            expect(f?.deployments.find((x) => x.name === `d${dep}`)).toEqual({
              name: `d${dep}`,
              calls: mine.length,
              peakAll: peakOfIntervals(mine),
            });
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
