// Detection unchanged by the keyword prefilter (issue 28): the labelled corpus of bench/secrets.sh
// (bench/secrets/labelled.mjs, seeded, so every run writes the same files) gives exactly the findings
// recorded in fixtures/labelled-findings.json, which were taken with the scanner as it was before the
// prefilter (every detector's keywords tested per line). A finding is its file, line, column, rule and
// the fingerprint of its value (never the value). Set KVGATE_RECORD_GOLDEN=1 to record it again: only
// when a detector is meant to change what it finds.
import { describe, expect, test } from "vitest";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { builtinDetectors } from "../../src/rules/detectors.js";
import { numberLines, scanLines } from "../../src/secrets/scan.js";
import { secretFingerprint } from "../../src/secrets/redact.js";

const GOLDEN = join(import.meta.dirname, "fixtures", "labelled-findings.json");
const GENERATOR = join(import.meta.dirname, "..", "..", "bench", "secrets", "labelled.mjs");

function filesUnder(dir: string): string[] {
  return readdirSync(dir)
    .flatMap((name) => {
      const p = join(dir, name);
      return statSync(p).isDirectory() ? filesUnder(p) : [p];
    })
    .sort();
}

/** Every finding of the labelled corpus, in file then line then column order. */
function labelledFindings(): string[] {
  const work = mkdtempSync(join(tmpdir(), "kvgate-labelled-"));
  try {
    const tree = join(work, "tree");
    // 8 positives per family, the bench's default.
    execFileSync(process.execPath, [GENERATOR, tree, "8"], { stdio: "ignore" });
    const set = builtinDetectors();
    return filesUnder(tree).flatMap((file) =>
      scanLines(numberLines(readFileSync(file, "utf8")), set).map(
        (m) => `${relative(tree, file)}:${m.line}:${m.column} ${m.detector.rule} ${secretFingerprint(m.value)}`,
      ),
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

describe("the labelled secret corpus", () => {
  test("gives the same findings as before the keyword prefilter", () => {
    const got = labelledFindings();
    if (process.env["KVGATE_RECORD_GOLDEN"] === "1") writeFileSync(GOLDEN, `${JSON.stringify(got, null, 1)}\n`);
    const want = JSON.parse(readFileSync(GOLDEN, "utf8")) as string[];
    // The corpus holds hundreds of secrets of every family: an empty scan must not pass.
    expect(want.length).toBeGreaterThan(300);
    expect(got).toEqual(want);
  });
});
