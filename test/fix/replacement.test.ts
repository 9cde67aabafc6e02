// A value fix as a SARIF replacement: the region of the value, the text written, and the cases where no
// replacement is given (the writer could not place the fix), so a viewer never applies a wrong edit.
import { describe, expect, test } from "vitest";
import { applyFixes } from "../../src/fix/edit.js";
import { applyReplacement, fixReplacement } from "../../src/fix/replacement.js";
import { sarifLog } from "../../src/report/sarif.js";
import { countFindings, verdictOf, type CheckResult } from "../../src/engine/result.js";
import type { Finding } from "../../src/model/types.js";

const fix = (key: string, value: string, line: number | null = null, file = "scripts/a.env") => ({ file, line, key, value });

describe("fixReplacement", () => {
  test.each([
    // `A=1\n` is 4 characters: TTM_MIN_MIB's value starts at offset 4 + 12 = 16, column 13.
    [
      "an env value",
      "A=1\nTTM_MIN_MIB=97791   # ledger\n",
      fix("TTM_MIN_MIB", "97792", 2),
      { charOffset: 16, charLength: 5, startLine: 2, startColumn: 13, endColumn: 18, text: "97792" },
    ],
    [
      "a quoted value keeps its quotes",
      'MAX_MODEL_LEN="65536"\n',
      fix("MAX_MODEL_LEN", "40960", 1),
      { charOffset: 14, charLength: 7, startLine: 1, startColumn: 15, endColumn: 22, text: '"40960"' },
    ],
    [
      "a CRLF file counts its line endings",
      "A=1\r\nB=2\r\n",
      fix("B", "3", 2),
      { charOffset: 7, charLength: 1, startLine: 2, startColumn: 3, endColumn: 4, text: "3" },
    ],
    ["an added line is an insertion at the end", "A=1", fix("B", "2"), { charOffset: 3, charLength: 0, text: "\nB=2\n" }],
  ])("%s", (_name, text, f, expected) => {
    const r = fixReplacement(text, f);
    expect(r).toEqual(expected);
    expect(applyReplacement(text, r as NonNullable<typeof r>)).toBe(applyFixes(text, f.file, [f]).text);
  });

  test.each([
    ["the key is set through a variable", '        line: "MAX_MODEL_LEN={{ ctx }}"\n', fix("MAX_MODEL_LEN", "40960", 1, "playbooks/p.yml")],
    ["a flag no line carries", "A=1\n", fix("--max-model-len", "40960", 1)],
  ])("no replacement when %s", (_name, text, f) => {
    expect(fixReplacement(text, f)).toBeNull();
  });
});

describe("SARIF fixes", () => {
  const finding = (over: Partial<Finding>): Finding => ({
    rule: "ttm/ledger",
    severity: "error",
    status: "open",
    message: "set TTM_MIN_MIB=97792",
    file: "scripts/a.env",
    line: 2,
    service: "a",
    commit: null,
    fingerprint: "fp",
    data: { fix: fix("TTM_MIN_MIB", "97792", 2) },
    ...over,
  });
  const result = (findings: Finding[]): CheckResult => ({
    tool: "kvgate",
    version: "0.1.0",
    mode: "staged",
    failOn: "error",
    verdict: verdictOf(findings, "error"),
    counts: countFindings(findings),
    findings,
    units: ["staged"],
    filesChecked: 1,
  });
  const files = new Map([["scripts/a.env", "A=1\nTTM_MIN_MIB=97791\n"]]);

  test("an open finding's fix is one artifactChange replacing the value", () => {
    const log = sarifLog(result([finding({})]), undefined, files);
    expect(log.runs[0]?.results?.[0]?.fixes).toEqual([
      {
        description: { text: "set TTM_MIN_MIB=97792" },
        artifactChanges: [
          {
            artifactLocation: { uri: "scripts/a.env", uriBaseId: "%SRCROOT%" },
            replacements: [
              {
                deletedRegion: { charOffset: 16, charLength: 5, startLine: 2, startColumn: 13, endColumn: 18 },
                insertedContent: { text: "97792" },
              },
            ],
          },
        ],
      },
    ]);
  });

  test("no fix for a suppressed finding, a file not given, or a fix one of whose values cannot be placed", () => {
    const two = { fixes: [fix("TTM_MIN_MIB", "97792", 2), fix("--ttm-target", "1", 1)] };
    const log = sarifLog(
      result([
        finding({ status: "exempt", reason: "owner" }),
        finding({ data: { fix: fix("X", "1", 1, "scripts/b.env") } }),
        finding({ data: two }),
      ]),
      undefined,
      files,
    );
    expect(log.runs[0]?.results?.map((r) => r.fixes)).toEqual([undefined, undefined, undefined]);
    expect(sarifLog(result([finding({})])).runs[0]?.results?.[0]?.fixes).toBeUndefined();
  });
});
