// kvgate audit's classification of one commit (contract section 9), through the engine's audit (the
// same scan and finding pipeline as the gate); each audit/* rule's own table is in test/rules/tables/.
import { describe, expect, test } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { classifyCommit, type Classification } from "../../src/secrets/audit.js";
import { auditCommit } from "../../src/engine/audit.js";
import { secretScan } from "../../src/checks/secret-scan.js";
import { secretFingerprint } from "../../src/secrets/redact.js";
import type { ChangedFile, Trailer } from "../../src/git/types.js";
import { defaultPolicy, pack, runCase } from "../helpers/rule-tester.js";
import { FAKE, addedFile, secretCase } from "./helpers.js";

const T = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
const PH = "AKIA0000000000000EXAMPLE";
const SKILL = "agent/managed-skills/aws/SKILL.md";
const SEED = readFileSync(join(import.meta.dirname, "fixtures", "seed-001-message.txt"), "utf8");

const NOTHING: ChangedFile[] = [];
const PLACEHOLDERS = [addedFile(SKILL, `an id looks like ${PH}\nand again: ${PH}`)];
const REAL_KEY = [addedFile(SKILL, `${PH} ${FAKE.awsId}`)];
const V = (v: string): Trailer => ({ key: "Kvgate-Verdict", value: `${v} tree=${T}` });
/** The Kvgate-Allowed-Secret trailer the hook writes for the real key of REAL_KEY. */
const ALLOWED: Trailer = { key: "Kvgate-Allowed-Secret", value: `secret/aws-access-key-id ${secretFingerprint(FAKE.awsId)} ${SKILL}:1` };

const audit = (message: string, trailers: Trailer[], files: ChangedFile[], policy = defaultPolicy()) =>
  auditCommit(
    { commit: { sha: "c0ffee", parents: [], subject: message.split("\n")[0] ?? "", message, trailers, author: "t" }, files },
    policy,
    pack,
  );
/** The re-scan's findings as the pipeline makes them (the input classifyCommit takes). */
const rescan = (files: ChangedFile[]) => runCase(secretCase("rescan", files), [secretScan]);

describe("a commit's classification", () => {
  test.each<[string, string, Trailer[], ChangedFile[], Classification, string[]]>([
    ["nothing credential-shaped", "Raise the pool", [V("pass")], NOTHING, "clean", []],
    [
      "the seed commit: ALLOW_SECRETS=1 named, only placeholders",
      SEED,
      [],
      PLACEHOLDERS,
      "exempt-only",
      ["audit/override-unneeded:notice"],
    ],
    ["placeholders, no override recorded", "Add the skill page", [V("pass")], PLACEHOLDERS, "exempt-only", []],
    [
      "placeholders under a Kvgate-Verdict: allowed trailer",
      "Land",
      [V("allowed")],
      PLACEHOLDERS,
      "exempt-only",
      ["audit/override-unneeded:notice"],
    ],
    ["an override recorded but nothing found", "Land (ALLOW_SECRETS=1)", [], NOTHING, "clean", ["audit/override-unneeded:notice"]],
    [
      "a real key under a recorded allowed trailer",
      "Land",
      [V("allowed"), ALLOWED],
      REAL_KEY,
      "secret-landed",
      ["audit/secret-landed:error"],
    ],
    [
      "a real key, message naming ALLOW_SECRETS=1 only",
      "Landed with `ALLOW_SECRETS=1`",
      [],
      REAL_KEY,
      "secret-landed",
      ["audit/secret-landed:error"],
    ],
    ["a real key, no trailer at all", "Quick fix", [], REAL_KEY, "bypass", ["audit/bypass:error"]],
    ["a real key, Kvgate-Verdict: not-run (--no-verify)", "Quick fix", [V("not-run")], REAL_KEY, "bypass", ["audit/bypass:error"]],
    ["a real key, but the trailer says pass", "Raise", [V("pass")], REAL_KEY, "verdict-mismatch", ["audit/verdict-mismatch:error"]],
    ["ALLOW_SECRETS=10 does not name the override", "ALLOW_SECRETS=10", [], REAL_KEY, "bypass", ["audit/bypass:error"]],
    ["skipped-file notices are not secrets", "x", [], [addedFile("a.png", "", { binary: true })], "clean", []],
  ])("%s → %s", (_c, message, trailers, files, classification, reports) => {
    const row = audit(message, trailers, files);
    expect(row.classification).toBe(classification);
    const found = row.findings.filter((f) => f.rule.startsWith("audit/"));
    expect(found.map((x) => `${x.rule}:${x.severity}`)).toEqual(reports);
    for (const x of found) {
      expect(x.commit).toBe("c0ffee");
      expect(JSON.stringify(x)).not.toContain(FAKE.awsId);
    }
  });

  test("trailers are also read from the message when the git layer parsed none", async () => {
    const r = classifyCommit({ message: `Land\n\nKvgate-Verdict: pass tree=${T}\n`, trailers: [], findings: await rescan(REAL_KEY) });
    expect([r.classification, r.verdict, r.override]).toEqual(["verdict-mismatch", "pass", false]);
  });

  test("the override's name follows secrets.override", async () => {
    const findings = await rescan(REAL_KEY);
    expect(classifyCommit({ message: "KVGATE_ALLOW=1", trailers: [], findings, override: "KVGATE_ALLOW" }).classification).toBe(
      "secret-landed",
    );
    expect(classifyCommit({ message: "ALLOW_SECRETS=1", trailers: [], findings, override: "KVGATE_ALLOW" }).classification).toBe("bypass");
  });

  test("the override-unneeded report counts the exempt values", async () => {
    const r = classifyCommit({ message: SEED, trailers: [], findings: await rescan(PLACEHOLDERS) });
    expect(r.override).toBe(true);
    expect(r.reports[0]?.data["exempt"]).toBe(2);
  });
});
