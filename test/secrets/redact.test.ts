import { describe, expect, test } from "vitest";
import { createHash } from "node:crypto";
import { redactFinding, redactSecret, scrubData, scrubText, secretFingerprint } from "../../src/secrets/redact.js";
import { FAKE } from "./helpers.js";

describe("redactSecret", () => {
  test.each([
    [FAKE.awsId, `AKIA…${FAKE.awsId.slice(-2)}`],
    ["abcdefghijkl", "abcd…kl"],
    ["abcdefghijk", "********"],
    ["abcdef", "******"],
    ["ab", "****"],
    ["", "****"],
  ])("%j → %j", (value, shown) => {
    expect(redactSecret(value)).toBe(shown);
  });
  test("never shows more than 6 characters of the value", () => {
    for (const v of Object.values(FAKE)) {
      const r = redactSecret(v);
      expect(r.replace("…", "").length).toBeLessThanOrEqual(6);
    }
  });
});

test("secretFingerprint is sha256:<first 12 hex of the value's sha256>", () => {
  const hex = createHash("sha256").update(FAKE.ghp).digest("hex");
  expect(secretFingerprint(FAKE.ghp)).toBe(`sha256:${hex.slice(0, 12)}`);
  expect(secretFingerprint(FAKE.ghp)).not.toBe(secretFingerprint(FAKE.awsId));
});

describe("scrubText and scrubData", () => {
  test("every occurrence, longest secret first", () => {
    const long = `${FAKE.awsId}XYZ`;
    expect(scrubText(`a ${FAKE.awsId} b ${long} c ${FAKE.awsId}`, [FAKE.awsId, long])).toBe(
      `a ${redactSecret(FAKE.awsId)} b ${redactSecret(long)} c ${redactSecret(FAKE.awsId)}`,
    );
    expect(scrubText("nothing here", [FAKE.awsId, ""])).toBe("nothing here");
  });
  test("data: nested strings, arrays and keys; numbers untouched", () => {
    const data = { a: FAKE.ghp, n: 5, list: [`x${FAKE.ghp}`], deep: { [FAKE.ghp]: true } };
    const out = JSON.stringify(scrubData(data, [FAKE.ghp]));
    expect(out).not.toContain(FAKE.ghp);
    expect(JSON.parse(out).n).toBe(5);
  });
  test("redactFinding scrubs message, reason and data and sets the fingerprint", () => {
    const f = redactFinding({ message: `found ${FAKE.hf}`, reason: `because ${FAKE.hf}`, data: { v: FAKE.hf }, fingerprint: "x" }, FAKE.hf);
    expect(JSON.stringify(f)).not.toContain(FAKE.hf);
    expect(f.fingerprint).toBe(secretFingerprint(FAKE.hf));
  });
});
