// Nearest-rank percentiles (contract section 16: the ⌈q·n⌉-th smallest), worked by hand, and the
// bounded histogram that computes them exactly on millions of rows.
import { describe, expect, test } from "vitest";
import fc from "fast-check";
import { TokenHistogram, nearestRank, percentileOf } from "../../src/usage/histogram.js";

describe("nearest rank, by hand", () => {
  test.each([
    // values, p50, p99: rank ⌈0.5·n⌉ and ⌈0.99·n⌉
    { values: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], p50: 5, p99: 10 }, // ranks 5 and ⌈9.9⌉ = 10
    { values: [3, 1, 2], p50: 2, p99: 3 }, // ranks ⌈1.5⌉ = 2 and ⌈2.97⌉ = 3
    { values: [7], p50: 7, p99: 7 }, // rank 1 both
    { values: [5, 5, 5, 9], p50: 5, p99: 9 }, // ranks 2 and 4
    { values: [10, 20], p50: 10, p99: 20 }, // ranks 1 and 2
    { values: Array.from({ length: 100 }, (_, i) => i + 1), p50: 50, p99: 99 }, // ranks 50 and 99
    { values: Array.from({ length: 200 }, (_, i) => 200 - i), p50: 100, p99: 198 }, // ranks 100 and 198
    { values: Array.from({ length: 101 }, (_, i) => i), p50: 50, p99: 99 }, // ranks 51 and ⌈99.99⌉ = 100 → values 50, 99
    // runaway-sized values live outside the dense array: ranks 2 and 3
    { values: [200_000, 1, 150_000], p50: 150_000, p99: 200_000 },
  ])("$values.length values → p50 $p50, p99 $p99", ({ values, p50, p99 }) => {
    expect(percentileOf(values, 50)).toBe(p50);
    expect(percentileOf(values, 99)).toBe(p99);
    const h = new TokenHistogram();
    for (const v of values) h.add(v);
    expect(h.quantiles()).toEqual({ p50, p99, max: Math.max(...values) });
  });

  test("ranks are computed in integers: ⌈7 × 100 / 100⌉ = 7, where Math.ceil(0.07 × 100) is 8", () => {
    expect(Math.ceil(0.07 * 100)).toBe(8);
    expect(nearestRank(7, 100)).toBe(7);
    expect(nearestRank(99, 1)).toBe(1);
    expect(nearestRank(50, 3)).toBe(2);
    expect(() => nearestRank(0, 10)).toThrow(/1\.\.100/);
  });

  test("an empty histogram has no percentiles; a negative or fractional count is refused", () => {
    expect(new TokenHistogram().quantiles()).toBeNull();
    expect(() => new TokenHistogram().add(-1)).toThrow(/non-negative integer/);
    expect(() => new TokenHistogram().add(1.5)).toThrow(/non-negative integer/);
  });
});

describe("the histogram is exact and bounded", () => {
  test("equals sorting for any multiset of token counts", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.integer({ min: 0, max: 5000 }), fc.integer({ min: 100_000, max: 300_000 })), { minLength: 1, maxLength: 400 }),
        (values) => {
          const h = new TokenHistogram();
          for (const v of values) h.add(v);
          expect(h.percentile(50)).toBe(percentileOf(values, 50));
          expect(h.percentile(99)).toBe(percentileOf(values, 99));
          expect(h.max).toBe(Math.max(...values));
        },
      ),
      { numRuns: 200 },
    );
  });

  test("a million requests over 1,000 distinct sizes hold 1,000 entries", () => {
    const h = new TokenHistogram();
    for (let i = 0; i < 1_000_000; i++) h.add((i * 7919) % 1000);
    expect(h.count).toBe(1_000_000);
    expect(h.distinct).toBe(1000);
    // 1,000 copies of each of 0..999: rank 500,000 is the last 499, rank 990,000 the last 989.
    expect(h.quantiles()).toEqual({ p50: 499, p99: 989, max: 999 });
  });
});
