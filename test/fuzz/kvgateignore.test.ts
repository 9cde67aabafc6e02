// Fuzzing the .kvgateignore reader (contract section 15, issue 26): any text gives entries and
// problems, never a throw; every line that is not blank or a comment is exactly one of them; an entry
// always has a fingerprint as kvgate prints it and a real date; a problem names its line and the
// accepted form; and an entry printed back in the accepted form reads back the same.
import { describe, expect, test } from "vitest";
import fc from "fast-check";
import { IGNORE_SHAPE, parseIgnore, type IgnoreEntry } from "../../src/secrets/ignore.js";
import { RUNS } from "./arbitraries.js";

const TODAY = "2026-12-02";

function wellFormed(text: string): void {
  const l = parseIgnore(text, TODAY);
  const lines = text.split("\n");
  const meaningful = lines.map((t, k) => [k + 1, t.replace(/\r$/, "").trim()] as const).filter(([, t]) => t !== "" && !t.startsWith("#"));
  const seen = [...l.entries.map((e) => e.line), ...l.problems.map((p) => p.line)].sort((a, b) => a - b);
  expect(seen).toEqual(meaningful.map(([n]) => n));
  for (const e of l.entries) {
    expect(e.fingerprint).toMatch(/^sha256:[0-9a-f]{12}$/);
    if (e.until !== null) expect(new Date(`${e.until}T00:00:00Z`).toISOString().slice(0, 10)).toBe(e.until);
  }
  for (const p of l.problems) {
    expect(p.line).toBeGreaterThanOrEqual(1);
    expect(p.line).toBeLessThanOrEqual(lines.length);
    expect(p.problem).toContain(IGNORE_SHAPE);
    // A problem quotes at most 40 characters of the line: a raw value pasted there is never repeated whole.
    for (const q of p.problem.matchAll(/"([^"]*)"/g)) expect((q[1] ?? "").length).toBeLessThanOrEqual(40);
  }
}

const hex12 = fc.stringMatching(/^[0-9a-f]{12}$/);
const date = fc
  .date({ min: new Date("2000-01-01T00:00:00Z"), max: new Date("2099-12-31T00:00:00Z"), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));
// The parser reads any date-shaped token of a line (`0-0-00`, `a-1-2-33`) as a misspelt expiry and
// refuses the line (fail closed: an entry must never silently not expire), so the round trip draws
// reasons and owners without one; the near misses have their own property below.
const DATE_SHAPED = /\b\d{4}[-/.]\d{1,2}[-/.]\d{1,2}\b|\b\d{1,2}[-/]\d{1,2}[-/]\d{2,4}\b|\b\d{1,2}\.\d{1,2}\.\d{4}\b/;
const word = fc.stringMatching(/^[A-Za-z][A-Za-z0-9_-]{0,11}$/).filter((w) => !/until|expir|^exp$/i.test(w) && !DATE_SHAPED.test(w));
const owner = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,10}$/).filter((o) => !DATE_SHAPED.test(o));

/** Lines as people write them, right and wrong: the accepted form and its near misses. */
const ignoreLine = fc.oneof(
  fc
    .tuple(hex12, fc.array(word, { maxLength: 4 }), fc.option(owner), fc.option(date))
    .map(([h, words, o, d]) => `sha256:${h} # ${words.join(" ")}${o ? ` @${o}` : ""}${d ? ` until ${d}` : ""}`),
  fc
    .tuple(hex12, fc.constantFrom("Until:", "until=", "UNTIL", "until:", "expires", "expiry:", "exp=", "Expires on", ""), date)
    .map(([h, spelling, d]) => `sha256:${h} # sample ${spelling} ${d}`),
  fc
    .tuple(hex12, fc.constantFrom("2027-02-30", "2027-13-01", "31/03/2027", "tomorrow", "2027-3-1"))
    .map(([h, d]) => `sha256:${h} # until ${d}`),
  fc.constantFrom(
    "# a comment",
    "",
    "   ",
    "\r",
    "sha256:",
    "sha256:XYZ",
    "AKIAXXXXXXXXXXXXXXXX",
    "sha256:0123456789abc",
    "#sha256:0123456789ab",
  ),
  fc.string({ maxLength: 60 }),
);

describe("parseIgnore never throws and accounts for every line", () => {
  test("on any string", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300, unit: "binary" }), (text) => wellFormed(text)),
      { numRuns: RUNS.cheap },
    );
  });
  test("on .kvgateignore shapes: the accepted form, other spellings of an expiry, bad dates, CRLF", () => {
    fc.assert(
      fc.property(fc.array(ignoreLine, { maxLength: 12 }), fc.boolean(), (lines, crlf) => wellFormed(lines.join(crlf ? "\r\n" : "\n"))),
      { numRuns: RUNS.cheap },
    );
  });
});

describe("an entry in the accepted form reads back the same", () => {
  const print = (e: Pick<IgnoreEntry, "fingerprint" | "owner" | "until"> & { words: string[] }): string =>
    `${e.fingerprint} # ${e.words.join(" ")}${e.owner ? ` @${e.owner}` : ""}${e.until ? ` until ${e.until}` : ""}`;
  test("fingerprint, owner and expiry survive", () => {
    fc.assert(
      fc.property(hex12, fc.array(word, { maxLength: 4 }), fc.option(owner), fc.option(date), (h, words, o, d) => {
        const fingerprint = `sha256:${h}`;
        const l = parseIgnore(print({ fingerprint, owner: o, until: d, words }), TODAY);
        expect(l.problems).toEqual([]);
        expect(l.entries).toHaveLength(1);
        expect(l.entries[0]).toMatchObject({ fingerprint, until: d, line: 1, ...(o ? { owner: o } : {}) });
      }),
      { numRuns: RUNS.cheap },
    );
  });
  test("an owner or a word shaped like a date reads as a misspelt expiry: a problem, never an entry (found by the round trip)", () => {
    for (const line of ["sha256:0aa0a0aaaaa0 #  @0-0-00", "sha256:0aa0a0aaaaa0 # a-1-2-33 @ops"]) {
      const l = parseIgnore(line, TODAY);
      expect(l.entries).toEqual([]);
      expect(l.problems[0]?.problem).toMatch(/reads as an expiry but is not written `until YYYY-MM-DD`/);
    }
  });
  test("any other spelling of the expiry is a problem, never an entry that does not expire", () => {
    fc.assert(
      fc.property(
        hex12,
        fc.constantFrom("Until:", "until=", "UNTIL", "until:", "Until", "expires", "expiry:", "exp=", "Expires on"),
        date,
        (h, s, d) => {
          const l = parseIgnore(`sha256:${h} # sample @ops ${s} ${d}`, TODAY);
          expect(l.entries).toEqual([]);
          expect(l.problems).toHaveLength(1);
          expect(l.problems[0]?.fingerprint).toBe(`sha256:${h}`);
        },
      ),
      { numRuns: RUNS.medium },
    );
  });
});
