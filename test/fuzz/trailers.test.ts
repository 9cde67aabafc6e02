// Fuzzing the trailer parser: any message gives a list of trailers (never a throw), each a key git
// would accept and a one-line trimmed value; printed trailers under a body parse back the same.
import { describe, expect, test } from "vitest";
import fc from "fast-check";
import { parseTrailers } from "../../src/git/trailers.js";
import { commitMessage, RUNS } from "./arbitraries.js";

function wellFormed(message: string): void {
  for (const t of parseTrailers(message)) {
    expect(t.key).toMatch(/^[A-Za-z0-9][A-Za-z0-9-]*$/);
    expect(t.value).toBe(t.value.trim());
    expect(t.value).not.toMatch(/[\r\n]/);
  }
}

describe("parseTrailers never throws", () => {
  test("on any string", () => {
    fc.assert(fc.property(fc.string({ maxLength: 200, unit: "binary" }), wellFormed), { numRuns: RUNS.cheap });
  });
  test("on commit-message shapes (subject, body, trailer-ish paragraphs, comments, continuation lines, CRLF)", () => {
    fc.assert(fc.property(commitMessage, wellFormed), { numRuns: RUNS.cheap });
  });
});

describe("printed trailers parse back", () => {
  const trailer = fc.record({
    key: fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9-]{0,15}$/),
    value: fc.string({ maxLength: 30 }).map((v) => v.replace(/[\r\n\u2028\u2029]/g, " ").trim()),
  });
  test("under a subject and a body, with LF or CRLF", () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[A-Za-z][ -~]{0,20}$/),
        fc.array(trailer, { minLength: 1, maxLength: 5 }),
        fc.constantFrom("\n", "\r\n"),
        (subject, trailers, eol) => {
          const message = [subject.trim() || "subject", "", "Some body text.", "", ...trailers.map((t) => `${t.key}: ${t.value}`), ""].join(
            eol,
          );
          expect(parseTrailers(message)).toEqual(trailers);
        },
      ),
      { numRuns: RUNS.cheap },
    );
  });
  test("a subject alone is never a trailer block", () => {
    fc.assert(
      fc.property(trailer, (t) => {
        expect(parseTrailers(`${t.key}: ${t.value}\n`)).toEqual([]);
      }),
      { numRuns: RUNS.medium },
    );
  });
});
