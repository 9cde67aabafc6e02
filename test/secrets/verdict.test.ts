import { afterEach, describe, expect, test } from "vitest";
import { mkdtempSync, readdirSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  loadVerdict,
  loadVerdictOfIndex,
  saveVerdict,
  verdictFile,
  verdictRecordOf,
  type VerdictRecord,
} from "../../src/git/verdict-store.js";

/** A staged key (src/git/staged-key.ts) and an index checksum. */
const KEY = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
const OTHER = "a".repeat(40);
const INDEX = "c".repeat(40);
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
    const r = verdictRecordOf({ verdict, findings }, KEY, INDEX, new Date("2026-10-05T00:00:00Z"));
    expect(r.verdict).toBe(expected);
    expect(r.allowed).toHaveLength(allowed);
    expect(r.at).toBe("2026-10-05T00:00:00.000Z");
  });
  test("a key or checksum that is not a hash is refused (it becomes a file name)", () => {
    expect(() => verdictRecordOf({ verdict: "pass", findings: [] }, "../../etc", null)).toThrow(/not a staged key/);
    expect(() => verdictRecordOf({ verdict: "pass", findings: [] }, KEY, "../x")).toThrow(/not a staged key/);
  });
});

describe("saveVerdict / loadVerdict", () => {
  const rec: VerdictRecord = {
    version: 2,
    key: KEY,
    index: INDEX,
    verdict: "allowed",
    at: "2026-10-05T00:00:00.000Z",
    allowed: [{ rule: "secret/aws-access-key-id", fingerprint: "sha256:0123456789ab", file: "a.env", line: 3 }],
  };
  test("round trip under <git-path kvgate>/verdicts/<key>.json, and by the index's checksum", () => {
    const dir = tmp();
    saveVerdict(dir, rec);
    expect(readdirSync(join(dir, "verdicts")).sort()).toEqual([`${KEY}.json`, `index-${INDEX}.json`]);
    expect(loadVerdict(dir, KEY)).toEqual(rec);
    expect(loadVerdictOfIndex(dir, INDEX)).toEqual(rec);
  });
  test("another staged change or another index has no verdict; an index without a checksum none", () => {
    const dir = tmp();
    saveVerdict(dir, rec);
    expect(loadVerdict(dir, OTHER)).toBeNull();
    expect(loadVerdictOfIndex(dir, OTHER)).toBeNull();
    expect(loadVerdictOfIndex(dir, null)).toBeNull();
    saveVerdict(dir, { ...rec, key: OTHER, index: null });
    expect(readdirSync(join(dir, "verdicts"))).toHaveLength(3);
  });
  test("a missing folder, a corrupt file, a record of another change or of the old version reads as null", () => {
    const dir = tmp();
    expect(loadVerdict(dir, KEY)).toBeNull();
    mkdirSync(join(dir, "verdicts"), { recursive: true });
    writeFileSync(verdictFile(dir, KEY), "{not json");
    expect(loadVerdict(dir, KEY)).toBeNull();
    writeFileSync(verdictFile(dir, KEY), JSON.stringify({ ...rec, key: OTHER }));
    expect(loadVerdict(dir, KEY)).toBeNull();
    writeFileSync(verdictFile(dir, KEY), JSON.stringify({ ...rec, verdict: "maybe" }));
    expect(loadVerdict(dir, KEY)).toBeNull();
    // A version 1 record (keyed by write-tree's tree) is another kvgate's: not this change's verdict.
    writeFileSync(verdictFile(dir, KEY), JSON.stringify({ version: 1, tree: KEY, verdict: "pass", at: "", allowed: [] }));
    expect(loadVerdict(dir, KEY)).toBeNull();
  });
  test("saving again replaces the record", () => {
    const dir = tmp();
    saveVerdict(dir, rec);
    saveVerdict(dir, { ...rec, verdict: "pass", allowed: [] });
    expect(loadVerdict(dir, KEY)?.verdict).toBe("pass");
    expect(loadVerdictOfIndex(dir, INDEX)?.verdict).toBe("pass");
  });
});
