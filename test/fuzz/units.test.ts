// Fuzzing the unit readers: any text gives a whole, finite, safe number or a message; and the
// printed forms (plain integers, `<n><unit>`, formatBytes) read back to the number they print.
import { describe, expect, test } from "vitest";
import fc from "fast-check";
import {
  formatBytes,
  GiB,
  KiB,
  MiB,
  parseBytes,
  parseMib,
  parseTokens,
  parseVllmInt,
  TiB,
  type UnitResult,
} from "../../src/units/bytes.js";
import { RUNS } from "./arbitraries.js";

const READERS = { parseBytes, parseVllmInt, parseTokens, parseMib } as const;

/** Number-ish text: digits, dots, signs, exponents, units and whitespace in any order. */
const unitText = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc
    .array(
      fc.constantFrom(
        "0",
        "1",
        "9",
        "22",
        ".",
        "-",
        "+",
        "e",
        "E",
        " ",
        "\t",
        "K",
        "k",
        "M",
        "G",
        "g",
        "T",
        "i",
        "B",
        "b",
        "GiB",
        "GB",
        "MiB",
        "Infinity",
        "NaN",
        "0x1",
        "_",
        "9".repeat(400),
      ),
      { maxLength: 8 },
    )
    .map((p) => p.join("")),
);

function sane(r: UnitResult, integer: boolean): void {
  if (r.ok) {
    expect(Number.isFinite(r.value)).toBe(true);
    expect(r.value).toBeGreaterThanOrEqual(0);
    if (integer) expect(Number.isSafeInteger(r.value)).toBe(true);
  } else {
    expect(typeof r.message).toBe("string");
    expect(r.message.length).toBeGreaterThan(0);
  }
}

describe("unit readers never throw and never return a non-number", () => {
  test.each(Object.entries(READERS))("%s", (name, read) => {
    fc.assert(
      fc.property(unitText, (text) => sane(read(text), name !== "parseMib")),
      { numRuns: RUNS.cheap },
    );
  });
  test.each([
    ["parseBytes", "9".repeat(400)],
    ["parseBytes", `${"9".repeat(400)}GiB`],
    ["parseBytes", "9007199254740993"],
    ["parseVllmInt", "9".repeat(400)],
    ["parseVllmInt", `${"9".repeat(400)}K`],
    ["parseTokens", "99999999999999999999"],
    ["parseMib", "9".repeat(400)],
  ] as const)("%s refuses an out-of-range value (case %#)", (name, text) => {
    const r = READERS[name](text);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(/too large/);
  });
});

const UNITS: [string, number][] = [
  ["B", 1],
  ["KiB", KiB],
  ["MiB", MiB],
  ["GiB", GiB],
  ["TiB", TiB],
  ["KB", 1e3],
  ["MB", 1e6],
  ["GB", 1e9],
  ["TB", 1e12],
  ["K", KiB],
  ["M", MiB],
  ["G", GiB],
  ["T", TiB],
  ["k", 1e3],
  ["m", 1e6],
  ["g", 1e9],
  ["t", 1e12],
];

describe("printed quantities read back", () => {
  test("plain integers, in every reader", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), (n) => {
        for (const read of [parseBytes, parseVllmInt, parseTokens, parseMib]) expect(read(String(n))).toEqual({ ok: true, value: n });
      }),
      { numRuns: RUNS.cheap },
    );
  });
  test("`<n><unit>` and `<n> <unit>` in parseBytes", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4096 }), fc.constantFrom(...UNITS), fc.constantFrom("", " "), (n, [unit, mult], sp) => {
        expect(parseBytes(`${n}${sp}${unit}`)).toEqual({ ok: true, value: n * mult });
      }),
      { numRuns: RUNS.cheap },
    );
  });
  test("vLLM's suffixes in parseVllmInt: k/m/g/t ×1000, K/M/G/T ×1024; IEC and SI strings refused", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4096 }),
        fc.constantFrom(...UNITS.filter(([u]) => u.length === 1 && u !== "B")),
        (n, [unit, mult]) => {
          expect(parseVllmInt(`${n}${unit}`)).toEqual({ ok: true, value: n * mult });
          expect(parseVllmInt(`${n}${unit.toUpperCase()}iB`).ok).toBe(false);
          expect(parseVllmInt(`${n}${unit.toUpperCase()}B`).ok).toBe(false);
        },
      ),
      { numRuns: RUNS.cheap },
    );
  });
  test("negative and fractional token counts are refused", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1 << 20 }), fc.integer({ min: 1, max: 9 }), (n, frac) => {
        expect(parseTokens(`-${n}`).ok).toBe(false);
        expect(parseTokens(`${n}.${frac}`).ok).toBe(false);
        expect(parseTokens("0").ok).toBe(false);
      }),
      { numRuns: RUNS.cheap },
    );
  });
  test("formatBytes → parseBytes is exact on whole units and within the printed rounding otherwise", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 44 }), (n) => {
        const printed = formatBytes(n);
        const r = parseBytes(printed);
        expect(r.ok).toBe(true);
        if (!r.ok) return;
        const unit = n >= GiB ? GiB : n >= MiB ? MiB : n >= KiB ? KiB : 1;
        // formatBytes keeps two decimals: the read-back is off by at most half a hundredth of the unit.
        expect(Math.abs(r.value - n)).toBeLessThanOrEqual(unit * 0.005 + 1);
        if (n % unit === 0) expect(r.value).toBe(n);
      }),
      { numRuns: RUNS.cheap },
    );
  });
});
