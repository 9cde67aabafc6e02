import { afterEach, describe, expect, test } from "vitest";
import { mkdtempSync, readdirSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadVerdict, saveVerdict, verdictFile, verdictRecordOf, type VerdictRecord } from "../../src/git/verdict-store.js";

const TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
const OTHER = "a".repeat(40);
const dirs: string[] = [];
const tmp = (): string => {
  const d = mkdtempSync(join(tmpdir(), "kvgate-verdict-"));
  dirs.push(d);
  return join(d, ".git", "kvgate");
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const finding = (rule: string, status: string, fingerprint = "sha256:0123456789ab") => ({
  rule,
  status,
  fingerprint,
  file: "a.env",
  line: 3,
});

describe("verdictRecordOf", () => {
  test.each([
    ["pass, nothing allowed", "pass", [finding("secret/aws-access-key-id", "exempt")], "pass", 0],
    [
      "pass with an allowed secret",
      "pass",
      [finding("secret/aws-access-key-id", "allowed"), finding("kv/oversized", "open")],
      "allowed",
      1,
    ],
    ["fail", "fail", [finding("secret/github-token", "open")], "fail", 0],
    ["fail even with allowed ones", "fail", [finding("secret/github-token", "allowed"), finding("kv/covers-context", "open")], "fail", 1],
  ] as const)("%s", (_c, verdict, findings, expected, allowed) => {
    const r = verdictRecordOf({ verdict, findings }, TREE, new Date("2026-10-05T00:00:00Z"));
    expect(r.verdict).toBe(expected);
    expect(r.allowed).toHaveLength(allowed);
    expect(r.at).toBe("2026-10-05T00:00:00.000Z");
  });
  test("a non-hash tree is refused (it becomes a file name)", () => {
    expect(() => verdictRecordOf({ verdict: "pass", findings: [] }, "../../etc")).toThrow(/not a tree hash/);
  });
});

describe("saveVerdict / loadVerdict", () => {
  const rec: VerdictRecord = {
    version: 1,
    tree: TREE,
    verdict: "allowed",
    at: "2026-10-05T00:00:00.000Z",
    allowed: [{ rule: "secret/aws-access-key-id", fingerprint: "sha256:0123456789ab", file: "a.env", line: 3 }],
  };
  test("round trip under <git-path kvgate>/verdicts/<tree>.json", () => {
    const dir = tmp();
    saveVerdict(dir, TREE, rec);
    expect(readdirSync(join(dir, "verdicts"))).toEqual([`${TREE}.json`]);
    expect(loadVerdict(dir, TREE)).toEqual(rec);
  });
  test("another tree has no verdict", () => {
    const dir = tmp();
    saveVerdict(dir, TREE, rec);
    expect(loadVerdict(dir, OTHER)).toBeNull();
  });
  test("a missing folder, a corrupt file, or a record of another tree reads as null", () => {
    const dir = tmp();
    expect(loadVerdict(dir, TREE)).toBeNull();
    mkdirSync(join(dir, "verdicts"), { recursive: true });
    writeFileSync(verdictFile(dir, TREE), "{not json");
    expect(loadVerdict(dir, TREE)).toBeNull();
    writeFileSync(verdictFile(dir, TREE), JSON.stringify({ ...rec, tree: OTHER }));
    expect(loadVerdict(dir, TREE)).toBeNull();
    writeFileSync(verdictFile(dir, TREE), JSON.stringify({ ...rec, verdict: "maybe" }));
    expect(loadVerdict(dir, TREE)).toBeNull();
  });
  test("saving again replaces the record", () => {
    const dir = tmp();
    saveVerdict(dir, TREE, rec);
    saveVerdict(dir, TREE, { ...rec, verdict: "pass", allowed: [] });
    expect(loadVerdict(dir, TREE)?.verdict).toBe("pass");
  });
});
