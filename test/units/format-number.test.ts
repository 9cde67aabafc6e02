// formatNumber stands in for toLocaleString("en-US", { maximumFractionDigits }) on the hook's path
// (ICU's formatter costs ~8 ms to build): it must print exactly what ICU prints.
import { describe, expect, it } from "vitest";
import { formatInt, formatNumber } from "../../src/units/bytes.js";

const icu = (n: number, digits: number): string => n.toLocaleString("en-US", { maximumFractionDigits: digits });

describe("formatNumber", () => {
  it.each([
    [40960, 2, "40,960"],
    [1234567.891, 2, "1,234,567.89"],
    [999.995, 2, "1,000"],
    [1.005, 2, "1.01"],
    [0.5, 0, "1"],
    [-2.5, 0, "-3"],
    [-0.001, 2, "-0"],
    [100, 3, "100"],
    [0.1 + 0.2, 2, "0.3"],
    [12.3456, 3, "12.346"],
  ])("%s with %s digits is %s, as ICU prints it", (n, digits, want) => {
    expect(formatNumber(n, digits)).toBe(want);
    expect(formatNumber(n, digits)).toBe(icu(n, digits));
  });

  it("agrees with ICU on 20,000 values of every shape the fleet prints", () => {
    let seed = 7;
    const rand = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const misses: string[] = [];
    for (let i = 0; i < 20_000; i++) {
      const scale = 10 ** Math.floor(rand() * 12 - 3);
      const v = (rand() - 0.3) * scale;
      const n = i % 3 === 0 ? Math.round(v) : i % 3 === 1 ? Math.round(v * 1000) / 1000 : v;
      for (const digits of [0, 1, 2, 3]) if (formatNumber(n, digits) !== icu(n, digits)) misses.push(`${n}/${digits}`);
    }
    expect(misses).toEqual([]);
  });

  it("leaves exponent forms and non-finite values to ICU", () => {
    for (const n of [1e21, 1e-7, Infinity, NaN, -0]) expect(formatNumber(n, 2)).toBe(icu(n, 2));
  });

  it("formatInt keeps two fraction digits", () => {
    expect(formatInt(44928)).toBe("44,928");
    expect(formatInt(0.125)).toBe("0.13");
  });
});
