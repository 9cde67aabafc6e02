// Fuzzing the env parser (contract section 2): any text gives a model with problems, never a throw;
// and a parsed model printed back as an env file parses to the same entries.
import { describe, expect, test } from "vitest";
import fc from "fast-check";
import { isFlagKey, parseEnv } from "../../src/parse/env.js";
import type { EnvEntry, ParsedEnv } from "../../src/model/types.js";
import { envKey, envText, envValue, RUNS } from "./arbitraries.js";

/** Prints one value so that the parser reads it back unchanged: single quotes are literal, double
 *  quotes carry the escapes the parser knows (`\\ \" \$ \` \n`), plain when nothing needs quoting. */
export function printValue(value: string): string {
  if (/^[A-Za-z0-9_.,:/@%+-]*$/.test(value) && !value.startsWith("'") && !value.startsWith('"')) return value;
  if (!value.includes("'") && !/[\r\n\u2028\u2029]/.test(value)) return `'${value}'`;
  return `"${value.replace(/[\\"$`]/g, (c) => `\\${c}`).replace(/\n/g, "\\n")}"`;
}

export function printEnv(entries: readonly Pick<EnvEntry, "key" | "value" | "exported">[], eol = "\n"): string {
  return entries.map((e) => `${e.exported ? "export " : ""}${e.key}=${printValue(e.value)}`).join(eol) + eol;
}

const shape = (env: ParsedEnv) => env.all.map((e) => ({ key: e.key, value: e.value, exported: e.exported }));

function wellFormed(env: ParsedEnv, text: string): void {
  // A file with no LF at all is a CR-only file: its lines end at CR (as the parser reads it).
  const physical = (text.includes("\n") ? text.split(/\r?\n/) : text.split("\r")).length;
  for (const p of env.problems) {
    expect(p.line).toBeGreaterThanOrEqual(1);
    expect(p.line).toBeLessThanOrEqual(physical);
    expect(p.message.length).toBeGreaterThan(0);
  }
  for (const e of env.all) {
    expect(e.key).toMatch(/^[A-Za-z_][A-Za-z0-9_]*$/);
    expect(e.line).toBeGreaterThanOrEqual(1);
    expect(env.entries.get(e.key)).toBeDefined();
  }
  for (const f of env.flags) {
    expect(f.name).toMatch(/^-/);
    expect(isFlagKey(f.fromKey)).toBe(true);
    expect(f.line).toBeGreaterThanOrEqual(1);
  }
}

describe("parseEnv never throws", () => {
  test("on any string", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200, unit: "binary" }), (text) => {
        wellFormed(parseEnv(text, "scripts/x.env"), text.replace(/^\uFEFF/, ""));
      }),
      { numRuns: RUNS.cheap },
    );
  });
  test("on env-file shapes: keys, quotes, escapes, comments, CRLF, BOM, export, SERVE_ARGS flags", () => {
    fc.assert(
      fc.property(envText, (text) => {
        wellFormed(parseEnv(text, "scripts/x.env"), text.replace(/^\uFEFF/, ""));
      }),
      { numRuns: RUNS.cheap },
    );
  });
});

describe("parse → print → parse gives the same entries", () => {
  test("for any parsed env file", () => {
    fc.assert(
      fc.property(envText, (text) => {
        const first = parseEnv(text, "scripts/x.env");
        const again = parseEnv(printEnv(first.all), "scripts/x.env");
        expect(shape(again)).toEqual(shape(first));
      }),
      { numRuns: RUNS.cheap },
    );
  });
  test("for generated entries, with CRLF and export, and no problems besides flag splitting", () => {
    const entries = fc.uniqueArray(fc.record({ key: envKey, value: envValue, exported: fc.boolean() }), {
      selector: (e) => e.key,
      maxLength: 8,
    });
    fc.assert(
      fc.property(entries, fc.constantFrom("\n", "\r\n"), (list, eol) => {
        const env = parseEnv(printEnv(list, eol), "scripts/x.env");
        expect(shape(env)).toEqual(list);
        expect(env.problems.filter((p) => !(p.kind === "parse" && p.key !== undefined && isFlagKey(p.key)))).toEqual([]);
      }),
      { numRuns: RUNS.cheap },
    );
  });
  test("flags in SERVE_ARGS survive the round trip", () => {
    const env = parseEnv(
      `SERVE_ARGS="--max_model_len 40960 --kv-cache-memory-bytes=22G --enforce-eager -tp 2 --hf-overrides '{\\"a\\": 1}'"\n`,
      "x.env",
    );
    const again = parseEnv(printEnv(env.all), "x.env");
    expect(again.flags.map((f) => [f.name, f.value])).toEqual(env.flags.map((f) => [f.name, f.value]));
    expect(env.flags.map((f) => [f.name, f.value])).toEqual([
      ["--max-model-len", "40960"],
      ["--kv-cache-memory-bytes", "22G"],
      ["--enforce-eager", null],
      ["-tp", "2"],
      ["--hf-overrides", '{"a": 1}'],
    ]);
  });
});
