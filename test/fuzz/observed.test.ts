// Fuzzing observed.yaml's reader (src/parse/observed.ts, read for gpu/plateau and kv/preempted): for
// any text it returns the file or its problems with their lines, never a throw; and what `observe
// --write` writes reads back to the same cards and seats.
import { describe, expect, test } from "vitest";
import fc from "fast-check";
import { readObservedFile } from "../../src/parse/observed.js";
import { RUNS } from "./arbitraries.js";

const iso = fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2030, 0, 1) }).map((t) => new Date(t).toISOString());
const scalar = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom("null", "~", "-1", "1e400", "0x10", "yes", '"x"', "[]", "{}", "&a", "*a", "!!binary aGk="),
  iso,
  fc.string({ maxLength: 12 }),
);
const key = fc.constantFrom(
  "version",
  "from",
  "until",
  "cards",
  "seats",
  "host",
  "index",
  "plateau_free_bytes",
  "service",
  "kv_bytes",
  "preemptions",
  "windows",
  "peak_kv_usage",
  "x",
);
/** YAML-shaped lines: keys, list items, flow maps, indentation, comments, stray syntax. */
const line = fc.oneof(
  fc.tuple(fc.nat(6), key, scalar).map(([n, k, v]) => `${" ".repeat(n)}${k}: ${v}`),
  fc.tuple(fc.nat(6), key, scalar).map(([n, k, v]) => `${" ".repeat(n)}- ${k}: ${v}`),
  fc.tuple(key, scalar, key, scalar).map(([a, x, b, y]) => `  - { ${a}: ${x}, ${b}: ${y} }`),
  fc.constantFrom("version: 1", "cards:", "seats:", "cards: []", "---", "...", "# c", "  - ", "cards: [", "\t- x", "%YAML 1.2"),
  fc.string({ maxLength: 20 }),
);
const yamlText = fc.array(line, { maxLength: 20 }).map((l) => l.join("\n"));

function wellFormed(text: string): void {
  const r = readObservedFile(text, "observed.yaml");
  if (r.ok) {
    for (const c of r.value.cards) expect(c.plateau_free_bytes).toBeGreaterThanOrEqual(0);
    for (const s of r.value.seats ?? []) expect(s.preemptions).toBeGreaterThanOrEqual(0);
    expect(r.cardLines).toHaveLength(r.value.cards.length);
  } else {
    expect(r.problems.length).toBeGreaterThan(0);
    for (const p of r.problems) {
      expect(p.line === null || p.line >= 1).toBe(true);
      expect(p.message.length).toBeGreaterThan(0);
    }
  }
}

describe("readObservedFile never throws", () => {
  test("on any string", () => {
    fc.assert(fc.property(fc.string({ maxLength: 300, unit: "binary" }), wellFormed), { numRuns: RUNS.cheap });
  });
  test("on YAML-shaped text", () => {
    fc.assert(fc.property(yamlText, wellFormed), { numRuns: RUNS.cheap });
  });
  test("a well-formed file with seats reads back whole", () => {
    const seat = fc.record({
      service: fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/),
      kv_bytes: fc.option(fc.nat(), { nil: null }),
      preemptions: fc.nat(1000),
      windows: fc.array(fc.record({ from: fc.option(iso, { nil: null }), until: iso, preemptions: fc.integer({ min: 1, max: 99 }) }), {
        maxLength: 3,
      }),
    });
    fc.assert(
      fc.property(fc.uniqueArray(seat, { selector: (s) => s.service, maxLength: 4 }), (seats) => {
        const text = [
          "version: 1",
          'from: "2026-10-01T00:00:00Z"',
          'until: "2026-10-02T00:00:00Z"',
          "cards: []",
          seats.length === 0 ? "seats: []" : "seats:",
          ...seats.flatMap((s) => [
            `  - service: ${JSON.stringify(s.service)}`,
            `    kv_bytes: ${s.kv_bytes ?? "null"}`,
            `    preemptions: ${s.preemptions}`,
            `    windows: [${s.windows.map((w) => `{ from: ${w.from === null ? "null" : JSON.stringify(w.from)}, until: ${JSON.stringify(w.until)}, preemptions: ${w.preemptions} }`).join(", ")}]`,
          ]),
        ].join("\n");
        const r = readObservedFile(text, "observed.yaml");
        expect(r.ok).toBe(true);
        if (r.ok) expect(r.value.seats ?? []).toEqual(seats);
      }),
      { numRuns: RUNS.medium },
    );
  });
});
