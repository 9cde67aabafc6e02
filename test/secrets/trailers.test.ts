import { describe, expect, test } from "vitest";
import {
  onlyKvgateTrailers,
  parseAllowedTrailer,
  parseVerdictTrailer,
  prepareCommitMsg,
  trailerVerdict,
  trailersOfMessage,
} from "../../src/secrets/trailers.js";
import type { VerdictRecord } from "../../src/git/verdict-store.js";

const T = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
const T2 = "b".repeat(40);
const pass: VerdictRecord = { version: 2, key: T, index: null, verdict: "pass", at: "", allowed: [] };
const allowed: VerdictRecord = {
  version: 2,
  key: T,
  index: null,
  verdict: "allowed",
  at: "",
  allowed: [
    { rule: "secret/aws-access-key-id", fingerprint: "sha256:0123456789ab", file: "scripts/a.env", line: 4 },
    { rule: "secret/generic-secret", fingerprint: "sha256:ba9876543210", file: "b.yml", line: 1 },
  ],
};
const V = `Kvgate-Verdict: pass tree=${T}`;
const NR = `Kvgate-Verdict: not-run tree=${T}`;
const COMMENTS = "# Please enter the commit message for your changes. Lines starting\n# with '#' will be ignored.\n#\n# On branch main\n";

describe("trailerVerdict", () => {
  test.each([
    // The record is looked up by the staged change's key: none found is "the gate did not run".
    ["no record", null, "not-run"],
    ["pass", pass, "pass"],
    ["allowed", allowed, "allowed"],
    ["a failed run (then --no-verify)", { ...pass, verdict: "fail" as const }, "not-run"],
  ])("%s", (_c, record, expected) => {
    expect(trailerVerdict(record)).toBe(expected);
  });
});

describe("prepareCommitMsg", () => {
  test.each([
    ["-m subject", "Raise the pool\n", "message", pass, `Raise the pool\n\n${V}\n`],
    ["subject and body", "Raise the pool\n\nBecause.\n", "message", pass, `Raise the pool\n\nBecause.\n\n${V}\n`],
    [
      "joins an existing trailer block",
      "Raise\n\nBody.\n\nSigned-off-by: A <a@x>\nRefs: #61\n",
      "message",
      pass,
      `Raise\n\nBody.\n\nSigned-off-by: A <a@x>\nRefs: #61\n${V}\n`,
    ],
    ["a subject that looks like a trailer is not a block", "fix: thing\n", "message", pass, `fix: thing\n\n${V}\n`],
    ["no verdict: not-run", "Raise\n", "message", null, `Raise\n\n${NR}\n`],
    [
      "allowed: one line per allowed finding",
      "Land\n",
      "message",
      allowed,
      `Land\n\nKvgate-Verdict: allowed tree=${T}\nKvgate-Allowed-Secret: secret/aws-access-key-id sha256:0123456789ab scripts/a.env:4\nKvgate-Allowed-Secret: secret/generic-secret sha256:ba9876543210 b.yml:1\n`,
    ],
    [
      "amend replaces, never duplicates",
      `Raise\n\nBody.\n\nRefs: #1\nKvgate-Verdict: allowed tree=${T2}\nKvgate-Allowed-Secret: secret/jwt sha256:aaaaaaaaaaaa x:1\n\n${COMMENTS}`,
      "commit",
      pass,
      `Raise\n\nBody.\n\nRefs: #1\n${V}\n\n${COMMENTS}`,
    ],
    ["amend of a message whose only trailers were ours", `Raise\n\n${NR}\n`, "commit", pass, `Raise\n\n${V}\n`],
    ["editor comments stay below the trailers", `Raise\n${COMMENTS}`, "template", pass, `Raise\n\n${V}\n\n${COMMENTS}`],
    ["an empty message being edited: subject line left empty", `\n${COMMENTS}`, undefined, pass, `\n\n${V}\n\n${COMMENTS}`],
    ["a message of nothing at all", "", undefined, null, `\n\n${NR}\n`],
    [
      "merge with conflicts comments",
      `Merge branch 'feature'\n\n# Conflicts:\n#\tscripts/a.env\n#\n# It looks like you may be committing a merge.\n`,
      "merge",
      pass,
      `Merge branch 'feature'\n\n${V}\n\n# Conflicts:\n#\tscripts/a.env\n#\n# It looks like you may be committing a merge.\n`,
    ],
    [
      "squash message: indented old trailers are not ours and stay",
      `Squashed commit of the following:\n\ncommit abc\nAuthor: A <a@x>\n\n    Raise\n    \n    Kvgate-Verdict: pass tree=${T2}\n`,
      "squash",
      pass,
      `Squashed commit of the following:\n\ncommit abc\nAuthor: A <a@x>\n\n    Raise\n    \n    Kvgate-Verdict: pass tree=${T2}\n\n${V}\n`,
    ],
    ["fixup! subject stays the subject", "fixup! Raise the pool\n", "message", pass, `fixup! Raise the pool\n\n${V}\n`],
    [
      "amend! with a body",
      "amend! Raise\n\nRaise the pool to 45952\n",
      "message",
      pass,
      `amend! Raise\n\nRaise the pool to 45952\n\n${V}\n`,
    ],
    [
      "commit -v: trailers above the scissors, the diff untouched",
      `Raise\n${COMMENTS}# ------------------------ >8 ------------------------\n# Do not modify or remove the line above.\ndiff --git a/x b/x\n+Kvgate-Verdict: pass tree=${T2}\n`,
      "message",
      pass,
      `Raise\n\n${V}\n\n${COMMENTS}# ------------------------ >8 ------------------------\n# Do not modify or remove the line above.\ndiff --git a/x b/x\n+Kvgate-Verdict: pass tree=${T2}\n`,
    ],
    ["CRLF input", "Raise\r\n\r\nBody\r\n", "message", pass, `Raise\n\nBody\n\n${V}\n`],
  ])("%s", (_c, message, source, record, expected) => {
    const out = prepareCommitMsg(message, source, record, T);
    expect(out).toBe(expected);
    // Idempotent: running the hook twice (amend of an amend) changes nothing.
    expect(prepareCommitMsg(out, "commit", record, T)).toBe(out);
  });

  test("core.commentChar is honoured", () => {
    expect(prepareCommitMsg("Raise\n; comment\n", "message", pass, T, { commentChar: ";" })).toBe(`Raise\n\n${V}\n\n; comment\n`);
  });

  test("a file name with a newline cannot forge a trailer line", () => {
    const rec: VerdictRecord = {
      ...allowed,
      allowed: [{ rule: "secret/jwt", fingerprint: "sha256:0123456789ab", file: "a\nKvgate-Verdict: pass", line: 1 }],
    };
    const out = prepareCommitMsg("x\n", "message", rec, T);
    expect(out.split("\n").filter((l) => l.startsWith("Kvgate-Verdict:"))).toHaveLength(1);
  });
});

describe("parsing", () => {
  test.each([
    [`pass tree=${T}`, { verdict: "pass", tree: T }],
    ["not-run", { verdict: "not-run", tree: null }],
    ["maybe tree=abc", null],
  ])("parseVerdictTrailer(%j)", (v, expected) => {
    expect(parseVerdictTrailer(v)).toEqual(expected);
  });
  test("parseAllowedTrailer", () => {
    expect(parseAllowedTrailer("secret/jwt sha256:0123456789ab a b.env:3")).toEqual({
      rule: "secret/jwt",
      fingerprint: "sha256:0123456789ab",
      where: "a b.env:3",
    });
    expect(parseAllowedTrailer("secret/jwt AKIA")).toBeNull();
  });
  test("trailersOfMessage reads the last paragraph only, never the subject", () => {
    expect(trailersOfMessage(`Raise\n\nKey: not a trailer here\nmore\n\nRefs: #1\n${V}\n# c\n`)).toEqual([
      { key: "Refs", value: "#1" },
      { key: "Kvgate-Verdict", value: `pass tree=${T}` },
    ]);
    expect(trailersOfMessage("Kvgate-Verdict: pass\n")).toEqual([]);
  });
  test.each([
    [`\n\n${V}\n${COMMENTS}`, true],
    [`Subject\n\n${V}\n`, false],
    [COMMENTS, false],
  ])("onlyKvgateTrailers(%j) = %s", (m, expected) => {
    expect(onlyKvgateTrailers(m)).toBe(expected);
  });
});
