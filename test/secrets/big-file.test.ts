// Issue 15 item 3 / issue 13 item 5: no size cliff. The streamed scan of a big file (read a chunk at
// a time through the keyword sieve) finds what the whole-file scan finds; a stream that breaks is the
// error secret/unscanned, never a pass. A big staged file through the built CLI: big-file.e2e.test.ts.
import { describe, expect, test } from "vitest";
import { FAKE, addedFile, bigText, pem, scan } from "./helpers.js";
import { builtinDetectors } from "../../src/rules/detectors.js";
import { keywordSieve, numberLines, scanLines, scanStream } from "../../src/secrets/scan.js";
import { blobLines } from "../../src/git/spill.js";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

describe("the streamed scan agrees with the whole-file scan", () => {
  test("same matches, same lines, across window edges (keys every 997 lines, a block at each edge)", () => {
    const plant = new Map<number, string>();
    for (let i = 5; i < 20000; i += 997) plant.set(i, `K${i}=${FAKE.glpat}`);
    for (const edge of [4296, 8592]) pem(FAKE.privateKeyBody).forEach((t, k) => plant.set(edge - 2 + k, t));
    const lines = numberLines(bigText(20000, plant));
    const set = builtinDetectors();
    const brief = (ms: Iterable<{ detector: { id: string }; line: number; column: number }>): string[] =>
      [...ms].map((m) => `${m.detector.id}@${m.line}:${m.column}`);
    const whole = brief(scanLines(lines, set));
    expect(whole.filter((w) => w.startsWith("private-key"))).toEqual(["private-key@4294:1", "private-key@8590:1"]);
    expect(whole).toHaveLength(21 + 2);
    expect(brief(scanStream(lines, set))).toEqual(whole);
  });
});

describe("the keyword sieve on raw bytes (streamed files)", () => {
  const set = builtinDetectors();
  const sieve = keywordSieve(set);
  const grade = (text: string): number => {
    const b = Buffer.from(`xx${text}yy`);
    // Read inside a bigger buffer, as lines are read out of a chunk.
    return sieve?.grade(b, 2, b.length - 2) ?? -1;
  };
  // The line prefilter it stands for: any keyword, case-insensitive.
  const keywords = [...new Set(set.detectors.flatMap((d) => d.keywords))];
  const prefilter = new RegExp(keywords.map((k) => k.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"), "i");

  test.each([
    ["# row 12: seat card ledger pool setting=12 note=batch-3", 0],
    ["", 0],
    [`AWS_ACCESS_KEY_ID=${FAKE.awsId}`, 1],
    [`token ${FAKE.ghp}`, 1],
    [`TOKEN ${FAKE.ghp.toUpperCase()}`, 1],
    ["akia", 1],
    ["ak\u00efa only non-ASCII between", 0],
    [`caf\u00e9 ${FAKE.glpat}`, 1],
    ["-----BEGIN PRIVATE KEY-----", 2],
    ['{"private_key": "-----BEGIN RSA PRIVATE KEY-----"}', 2],
    ["shard seat note line pool", 0],
    // Two-character and one-character keywords (`sk`, `.`), at a line's edges.
    ["ask", 1],
    ["v1.2", 1],
    ["SK", 1],
  ])("%j: grade %i, as the line prefilter says", (text, want) => {
    expect(grade(text)).toBe(want);
    expect(grade(text) > 0).toBe(prefilter.test(text));
  });

  test("through the sieve, a file read from disk gives the whole-file scan's matches, reading few lines", () => {
    const plant = new Map<number, string>();
    for (let i = 5; i < 20000; i += 997) plant.set(i, `K${i}=${FAKE.glpat}`);
    for (const edge of [4296, 8592]) pem(FAKE.privateKeyBody).forEach((t, k) => plant.set(edge - 2 + k, t));
    const text = bigText(20000, plant);
    const dir = mkdtempSync(join(tmpdir(), "kvgate-sieve-"));
    try {
      const path = join(dir, "dump.txt");
      writeFileSync(path, text);
      const brief = (ms: Iterable<{ detector: { id: string }; line: number; column: number }>): string[] =>
        [...ms].map((m) => `${m.detector.id}@${m.line}:${m.column}`);
      const whole = brief(scanLines(numberLines(text), set));
      expect(whole).toHaveLength(21 + 2);
      expect(brief(scanStream(blobLines(path, sieve ?? undefined), set))).toEqual(whole);
      // Of 20,000 lines: the keys' lines, and each block's four lines with the 200-line tail its last
      // line (`-----END PRIVATE KEY-----`, a keyword too) keeps.
      const read = [...blobLines(path, sieve ?? undefined)];
      expect(read.length).toBeLessThanOrEqual(21 + 2 * (4 + 200));
      expect(read.length).toBeGreaterThanOrEqual(21 + 4);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("secret/unscanned: a stream that breaks is an error, never a pass", () => {
  test("the read fails half way: one error at the file, with the fix", async () => {
    const file = addedFile("data/dump.txt", "", {
      size: 50_000_000,
      addedLines: [],
      streamedLines: function* () {
        yield { line: 1, text: "nothing here" };
        throw new Error("ENOENT: no such file or directory, open '/tmp/kvgate-spill-x/1.patch'");
      },
    });
    const got = await scan([file]);
    expect(got.map((a) => `${a.rule} ${a.severity} ${a.status ?? "open"} ${a.file}`)).toEqual([
      "secret/unscanned error open data/dump.txt",
    ]);
    expect(got[0]?.message).toMatch(/could not be scanned for secrets \(ENOENT.*secrets\.exclude/);
    expect(got[0]?.data).toMatchObject({ size_bytes: 50_000_000 });
  });
});
