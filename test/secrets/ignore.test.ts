// Issue 15 item 7 / contract section 15: the `.kvgateignore` parser (value fingerprints, an owner, an
// expiry); the file and `--baseline` through the built CLI: ignore.e2e.test.ts.
import { describe, expect, test } from "vitest";
import { isExpired, parseIgnore } from "../../src/secrets/ignore.js";

describe("parseIgnore: one fingerprint a line, reason, @owner, until", () => {
  test.each([
    ["fingerprint alone", "sha256:0123456789ab", { fingerprint: "sha256:0123456789ab", reason: "", owner: null, until: null, line: 1 }],
    [
      "with reason, owner and date",
      "sha256:0123456789ab  # AWS docs example in runbook @ops-team until 2027-03-31",
      { reason: "AWS docs example in runbook @ops-team until 2027-03-31", owner: "ops-team", until: "2027-03-31" },
    ],
    ["CRLF and indentation", "  sha256:0123456789ab # ok\r", { reason: "ok", owner: null }],
  ])("%s", (_c, text, want) => {
    const l = parseIgnore(text, "2026-12-02");
    expect(l.problems).toEqual([]);
    expect(l.entries[0]).toMatchObject(want);
  });

  test.each([
    ["an uppercase or short hash", "sha256:0123456789AB", 1, /not a fingerprint as kvgate prints it/],
    ["a raw value instead of its fingerprint", `\n${"AKIA"}XXXXXXXXXXXXXXXX # oops`, 2, /not a fingerprint/],
    ["a day that does not exist", "sha256:0123456789ab # until 2027-02-30", 1, /"until 2027-02-30" is not a date/],
    [
      "a date in another shape",
      "sha256:0123456789ab # until 31/03/2027",
      1,
      /"until 31\/03\/2027" reads as an expiry but is not written `until YYYY-MM-DD`/,
    ],
    // Issue 26: any other spelling of an expiry would be a permanent exemption; it is refused instead.
    ["Until: (capital, colon)", "sha256:0123456789ab # runbook @ops Until: 2027-03-31", 1, /"Until: 2027-03-31" reads as an expiry/],
    ["until= (equals)", "sha256:0123456789ab # runbook until=2027-03-31", 1, /"until=2027-03-31" reads as an expiry/],
    ["UNTIL (upper case)", "sha256:0123456789ab # UNTIL 2027-03-31", 1, /"UNTIL 2027-03-31" reads as an expiry/],
    ["until with two spaces", "sha256:0123456789ab # until  2027-03-31", 1, /reads as an expiry/],
    ["expires …", "sha256:0123456789ab # expires 2027-03-31", 1, /"expires 2027-03-31" reads as an expiry/],
    ["expiry: …", "sha256:0123456789ab # expiry: 2027-03-31", 1, /"expiry: 2027-03-31" reads as an expiry/],
    ["a bare date", "sha256:0123456789ab # review 2027-03-31", 1, /"2027-03-31" reads as an expiry/],
    ["a bare day-first date", "sha256:0123456789ab # review 31.03.2027", 1, /"31.03.2027" reads as an expiry/],
    ["two expiries", "sha256:0123456789ab # until 2027-03-31 until 2028-01-01", 1, /gives 2 expiries/],
    ["until glued to the reason", "sha256:0123456789ab # example.until 2027-03-31", 1, /reads as an expiry/],
    ["text after the fingerprint without #", "sha256:0123456789ab until 2027-03-31", 1, /is not a fingerprint as kvgate prints it/],
  ])("%s is a problem at its line", (_c, text, line, re) => {
    const l = parseIgnore(text, "2026-12-02");
    expect(l.entries).toEqual([]);
    expect(l.problems).toHaveLength(1);
    expect(l.problems[0]?.line).toBe(line);
    expect(l.problems[0]?.problem).toMatch(re);
    // Every problem names the accepted form.
    expect(l.problems[0]?.problem).toContain("`sha256:<12 hex> # reason @owner until YYYY-MM-DD`");
  });

  test.each([
    ["a version number in the reason", "sha256:0123456789ab # vendored in v10.0.12 @ops"],
    ["a ticket number", "sha256:0123456789ab # see OPS-2027 @ops until 2027-03-31"],
    ["an owner with a team", "sha256:0123456789ab # @org/platform until 2027-03-31"],
  ])("the accepted form with %s is an entry", (_c, text) => {
    const l = parseIgnore(text, "2026-12-02");
    expect(l.problems).toEqual([]);
    expect(l.entries).toHaveLength(1);
  });

  test("the message's fix, applied, makes the line an entry that expires", () => {
    const bad = "sha256:0123456789ab # runbook @ops Until: 2027-03-31";
    expect(parseIgnore(bad, "2026-12-02").entries).toEqual([]);
    const fixed = bad.replace("Until: ", "until ");
    const l = parseIgnore(fixed, "2026-12-02");
    expect(l.problems).toEqual([]);
    expect(l.entries[0]).toMatchObject({ owner: "ops", until: "2027-03-31" });
    expect(isExpired(l.entries[0]!, "2027-04-01")).toBe(true);
  });

  test("comments and blank lines are skipped; expiry is inclusive of the until day", () => {
    const l = parseIgnore("# accepted values\n\nsha256:0123456789ab # until 2026-12-02\n", "2026-12-02");
    expect(l.entries.map((e) => e.line)).toEqual([3]);
    const e = l.entries[0];
    if (!e) throw new Error("no entry");
    expect(isExpired(e, "2026-12-02")).toBe(false);
    expect(isExpired(e, "2026-12-03")).toBe(true);
  });
});
