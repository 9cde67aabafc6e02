import { describe, expect, test } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { classifyCommit, type Classification } from "../../src/secrets/audit.js";
import type { Finding } from "../../src/model/types.js";
import type { Trailer } from "../../src/git/types.js";
import { FAKE, addedFile, scan, toFinding } from "./helpers.js";

const T = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
const PH = "AKIA0000000000000EXAMPLE";
const SEED = readFileSync(join(import.meta.dirname, "fixtures", "seed-001-message.txt"), "utf8");

/** The audit's re-scan: the current policy, never the override (audit runs without ALLOW_SECRETS). */
const rescan = (text: string): Finding[] => scan([addedFile("agent/managed-skills/aws/SKILL.md", text)]).map((r) => toFinding(r, "c0ffee"));
const placeholdersOnly = (): Finding[] => rescan(`an id looks like ${PH}\nand again: ${PH}`);
const realKey = (): Finding[] => rescan(`${PH} ${FAKE.awsId}`);
const V = (v: string): Trailer => ({ key: "Kvgate-Verdict", value: `${v} tree=${T}` });
const A = (f: Finding): Trailer => ({ key: "Kvgate-Allowed-Secret", value: `${f.rule} ${f.fingerprint} ${f.file}:${f.line}` });

describe("classifyCommit", () => {
  const real = realKey().filter((f) => f.status !== "exempt");
  test.each<[string, string, Trailer[], () => Finding[], Classification, string[]]>([
    ["nothing credential-shaped", "Raise the pool", [V("pass")], () => [], "clean", []],
    ["the seed commit: ALLOW_SECRETS=1 named, only placeholders", SEED, [], placeholdersOnly, "exempt-only", ["audit/override-unneeded:notice"]],
    ["placeholders, no override recorded", "Add the skill page", [V("pass")], placeholdersOnly, "exempt-only", []],
    ["placeholders under a Kvgate-Verdict: allowed trailer", "Land", [V("allowed")], placeholdersOnly, "exempt-only", ["audit/override-unneeded:notice"]],
    ["an override recorded but nothing found", "Land (ALLOW_SECRETS=1)", [], () => [], "clean", ["audit/override-unneeded:notice"]],
    ["a real key under a recorded allowed trailer", "Land", [V("allowed"), ...real.map(A)], realKey, "secret-landed", ["audit/secret-landed:error"]],
    ["a real key, message naming ALLOW_SECRETS=1 only", "Landed with `ALLOW_SECRETS=1`", [], realKey, "secret-landed", ["audit/secret-landed:error"]],
    ["a real key, no trailer at all", "Quick fix", [], realKey, "bypass", ["audit/bypass:error"]],
    ["a real key, Kvgate-Verdict: not-run (--no-verify)", "Quick fix", [V("not-run")], realKey, "bypass", ["audit/bypass:error"]],
    ["a real key, but the trailer says pass", "Raise", [V("pass")], realKey, "verdict-mismatch", ["audit/verdict-mismatch:error"]],
    ["ALLOW_SECRETS=10 does not name the override", "ALLOW_SECRETS=10", [], realKey, "bypass", ["audit/bypass:error"]],
    ["skipped-file notices are not secrets", "x", [], () => scan([addedFile("a.png", "", { binary: true })]).map((r) => toFinding(r)), "clean", []],
  ])("%s → %s", (_c, message, trailers, findings, classification, reports) => {
    const r = classifyCommit({ sha: "c0ffee", message, trailers, findings: findings() });
    expect(r.classification).toBe(classification);
    expect(r.reports.map((x) => `${x.rule}:${x.severity}`)).toEqual(reports);
    for (const x of r.reports) {
      expect(x.commit).toBe("c0ffee");
      expect(JSON.stringify(x)).not.toContain(FAKE.awsId);
    }
  });

  test("trailers are also read from the message when the git layer parsed none", () => {
    const r = classifyCommit({ message: `Land\n\nKvgate-Verdict: pass tree=${T}\n`, trailers: [], findings: realKey() });
    expect([r.classification, r.verdict, r.override]).toEqual(["verdict-mismatch", "pass", false]);
  });

  test("secret-landed names each real secret, its place, and whether its fingerprint was recorded", () => {
    const findings = realKey();
    const r = classifyCommit({ sha: "c0ffee", message: "ALLOW_SECRETS=1", trailers: [], findings });
    const f = findings.find((x) => x.status === "open");
    expect(r.reports).toHaveLength(1);
    expect(r.reports[0]?.file).toBe("agent/managed-skills/aws/SKILL.md");
    expect(r.reports[0]?.line).toBe(1);
    expect(r.reports[0]?.data).toEqual({ secret_rule: "secret/aws-access-key-id", secret_fingerprint: f?.fingerprint, recorded: false });
    expect(r.reports[0]?.message).toMatch(/rotate it/);
    const r2 = classifyCommit({ message: "x", trailers: [V("allowed"), A(f as Finding)], findings });
    expect(r2.reports[0]?.data["recorded"]).toBe(true);
  });

  test("the override's name follows secrets.override", () => {
    expect(classifyCommit({ message: "KVGATE_ALLOW=1", trailers: [], findings: realKey(), override: "KVGATE_ALLOW" }).classification).toBe("secret-landed");
    expect(classifyCommit({ message: "ALLOW_SECRETS=1", trailers: [], findings: realKey(), override: "KVGATE_ALLOW" }).classification).toBe("bypass");
  });

  test("the override-unneeded notice counts the exempt values", () => {
    const r = classifyCommit({ message: SEED, trailers: [], findings: placeholdersOnly() });
    expect(r.override).toBe(true);
    expect(r.reports[0]?.data["exempt"]).toBe(2);
    expect(r.reports[0]?.message).toMatch(/exempts all 2 credential-shaped value\(s\)/);
  });
});
