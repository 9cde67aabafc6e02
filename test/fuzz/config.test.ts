// Fuzzing the config loader: for any text, parseConfig gives a Config or throws a GateError (exit 2
// with a hint), never another exception; hostile YAML (alias bombs, deep nesting) ends the same way, fast.
import { describe, expect, test } from "vitest";
import fc from "fast-check";
import { stringify } from "yaml";
import { loadPolicy, parseConfig } from "../../src/config/load.js";
import { loadPack } from "../../src/rules/load.js";
import { GateError } from "../../src/errors.js";
import { RUNS } from "./arbitraries.js";

const pack = loadPack();

/** Through the whole loader (schema, then resolving bytes and merging the defaults), as the CLI does. */
function outcome(text: string): "config" | "gate-error" {
  try {
    const c = parseConfig(text, "kvgate.yaml");
    expect(typeof c).toBe("object");
    const policy = loadPolicy(text, "kvgate.yaml", pack);
    for (const h of Object.values(policy.fleet.hosts)) for (const g of h.gpus) expect(Number.isSafeInteger(g.total_bytes)).toBe(true);
    return "config";
  } catch (e) {
    if (!(e instanceof GateError)) throw new Error(`not a GateError: ${(e as Error)?.stack ?? String(e)}`, { cause: e });
    expect(e.message).toMatch(/^kvgate\.yaml /);
    expect(e.hint).toBeTruthy();
    // Schema problems are listed every one; YAML syntax errors are capped so a broken file is not thousands of lines.
    if (/not valid YAML/.test(e.message)) expect(e.details.length).toBeLessThanOrEqual(11);
    else expect(e.message).toContain(`has ${e.details.length} problem`);
    return "gate-error";
  }
}

const quantity = fc.oneof(
  fc.integer(),
  fc.constantFrom("96GiB", "1GiB", "0.5GiB", "22GB", "9 gigs", "-1GiB", "", "1e3", "NaN"),
  fc.double(),
);
const gpu = fc.record(
  { index: fc.oneof(fc.nat(8), fc.constant(-1), fc.string()), total: quantity, reserve: quantity },
  { requiredKeys: [] },
);
/** Config-shaped values: the real keys with right, wrong and missing values, and unknown keys. */
const configShape = fc.record(
  {
    version: fc.oneof(fc.constant(1), fc.constant(2), fc.string()),
    services: fc.oneof(fc.constant("scripts/*.env"), fc.integer(), fc.array(fc.string())),
    fleet: fc.oneof(
      fc.record({ hosts: fc.dictionary(fc.constantFrom("fv-ml1", "fv-ml2", ""), fc.record({ gpus: fc.array(gpu, { maxLength: 3 }) })) }),
      fc.string(),
      fc.constant(null),
    ),
    kv: fc.record(
      {
        factor: fc.oneof(fc.double(), fc.string()),
        round: quantity,
        seats: fc.dictionary(
          fc.string({ maxLength: 8 }),
          fc.record({ pinned: quantity, by: fc.string(), yarn: fc.constantFrom("forbid", "allow", 3) }, { requiredKeys: [] }),
        ),
      },
      { requiredKeys: [] },
    ),
    vllm: fc.record({ overhead: quantity, default_utilization: fc.oneof(fc.double(), fc.string()) }, { requiredKeys: [] }),
    secrets: fc.record(
      {
        placeholders: fc.record(
          { values: fc.array(fc.string()), patterns: fc.array(fc.constantFrom("(", "a+", "[", "\\")) },
          { requiredKeys: [] },
        ),
        exclude: fc.array(fc.string()),
      },
      { requiredKeys: [] },
    ),
    waivers: fc.record({ trailer: fc.oneof(fc.string(), fc.integer()) }, { requiredKeys: [] }),
    unknown_key: fc.anything(),
  },
  { requiredKeys: [] },
);

const goodQuantity = fc.oneof(
  fc.integer({ min: 0, max: 2 ** 40 }),
  fc
    .tuple(fc.integer({ min: 0, max: 512 }), fc.constantFrom("B", "KiB", "MiB", "GiB", "TiB", "KB", "MB", "GB", "TB", " GiB"))
    .map(([n, u]) => `${n}${u}`),
);
const validShape = fc.record(
  {
    version: fc.constant(1),
    services: fc.constantFrom("scripts/*.env", "svc/**/*.env"),
    fleet: fc.record({
      hosts: fc.dictionary(
        fc.constantFrom("fv-ml1", "fv-ml2"),
        fc.record({
          gpus: fc.array(
            fc.record({ index: fc.nat(8), total: goodQuantity, reserve: goodQuantity }, { requiredKeys: ["index", "total"] }),
            { maxLength: 3 },
          ),
        }),
      ),
    }),
    kv: fc.record(
      {
        factor: fc.double({ min: 1, max: 2, noNaN: true }),
        round: goodQuantity,
        seats: fc.dictionary(
          fc.stringMatching(/^[a-z-]{1,8}$/),
          fc.record({ pinned: goodQuantity, by: fc.string(), yarn: fc.constantFrom("forbid", "allow") }, { requiredKeys: [] }),
        ),
      },
      { requiredKeys: [] },
    ),
    vllm: fc.record({ overhead: goodQuantity, default_utilization: fc.double({ min: 0.01, max: 1, noNaN: true }) }, { requiredKeys: [] }),
    secrets: fc.record(
      {
        placeholders: fc.record(
          { values: fc.array(fc.string()), patterns: fc.array(fc.constantFrom("a+", "EXAMPLE[0-9]*", "x|y")) },
          { requiredKeys: [] },
        ),
      },
      { requiredKeys: [] },
    ),
  },
  { requiredKeys: [] },
);

describe("parseConfig: a Config or a GateError, never another exception", () => {
  test("any string", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 120, unit: "binary" }), (t) => void outcome(t)),
      { numRuns: RUNS.cheap },
    );
  });
  test("any YAML value (lists, strings, numbers, nested maps)", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (v) => void outcome(stringify(v))),
      { numRuns: RUNS.medium },
    );
  });
  test("config-shaped documents with wrong values", () => {
    fc.assert(
      fc.property(configShape, (v) => void outcome(stringify(v))),
      { numRuns: RUNS.medium },
    );
  });
  test("valid documents load", () => {
    fc.assert(
      fc.property(validShape, (v) => {
        expect(outcome(stringify(v))).toBe("config");
      }),
      { numRuns: RUNS.medium },
    );
  });
  test.each([
    [
      "a placeholder pattern that is not a regex",
      "secrets:\n  placeholders:\n    patterns: ['(']\n",
      /secrets\.placeholders\.patterns\.0: not a valid regular expression \(kvgate\.yaml:3\)/,
    ],
    ["a byte quantity past 2^53", `kv:\n  round: ${"9".repeat(30)}GiB\n`, /kv\.round: too large/],
  ])("%s is a config problem with its path and line", (_, text, detail) => {
    expect(outcome(text)).toBe("gate-error");
    expect(() => loadPolicy(text, "kvgate.yaml", pack)).toThrow(/kvgate\.yaml has 1 problem/);
    try {
      loadPolicy(text, "kvgate.yaml", pack);
    } catch (e) {
      expect((e as GateError).details.join("\n")).toMatch(detail);
    }
  });
  test.each([
    ["a list", "- a\n- b\n", /expected object, received array/],
    ["a string", "hello\n", /expected object, received string/],
    ["a number", "42\n", /expected object, received number/],
  ])("a kvgate.yaml of the wrong type (%s) names the type", (_, text, detail) => {
    expect(() => parseConfig(text, "kvgate.yaml")).toThrow(GateError);
    try {
      parseConfig(text, "kvgate.yaml");
    } catch (e) {
      expect((e as GateError).details.join("\n")).toMatch(detail);
    }
  });
});

describe("hostile YAML", () => {
  const bomb = [
    "a: &a [x, x, x, x, x, x, x, x, x]",
    ..."bcdefghij".split("").map((c, i) => `${c}: &${c} [${Array(9).fill(`*${"abcdefghij"[i]}`).join(", ")}]`),
  ].join("\n");
  test.each([
    ["an alias bomb", bomb, /alias/i],
    ["10,000 levels of [", "[".repeat(10_000), /nested too deeply/],
    ["10,000 levels of {", "{a: ".repeat(10_000), /nested too deeply/],
    ["100 levels of block lists", Array.from({ length: 100 }, (_, i) => `${" ".repeat(i)}- `).join("\n"), /nested more than 64 levels/],
    ["100 levels of [ that parse", `${"[".repeat(100)}${"]".repeat(100)}`, /nested more than 64 levels/],
  ])("%s is a GateError with a short list of details, fast", (_, text, detail) => {
    let err: unknown;
    try {
      parseConfig(text, "kvgate.yaml");
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(GateError);
    const e = err as GateError;
    expect(e.details.length).toBeLessThanOrEqual(11);
    expect([e.message, ...e.details].join("\n")).toMatch(detail);
  });
});
