// secret-scan beyond its rule table (test/rules/tables/secret-scan.ts): a bad user pattern, and no raw
// value anywhere in what the pipeline makes of the reports.
import { describe, expect, test } from "vitest";
import { secretScan } from "../../src/checks/secret-scan.js";
import { runCase } from "../helpers/rule-tester.js";
import { FAKE, addedFile, secretCase } from "./helpers.js";

test("an invalid user pattern is an error naming it", async () => {
  await expect(runCase(secretCase("bad pattern", [addedFile("a.env", "x")], { patterns: ["AKIA(["] }), [secretScan])).rejects.toThrow(
    /placeholder pattern "AKIA\(\[" is not a valid regular expression/,
  );
});

describe("no raw value outside Report.secret", () => {
  const all = Object.entries(FAKE).map(([k, v]) =>
    k === "privateKeyBody"
      ? `-----BEGIN PRIVATE KEY-----\n${v}\n-----END PRIVATE KEY-----`
      : k === "awsSecret"
        ? `aws_secret_access_key = ${v}`
        : `X_TOKEN=${v}`,
  );
  test.each([[{}], [{ ALLOW_SECRETS: "1" }]])("env %j: the findings never hold a value, only its redacted form", async (env) => {
    const found = await runCase(secretCase("every fake", [addedFile("a.env", all.join("\n"))], { env }), [secretScan]);
    expect(found).toHaveLength(Object.keys(FAKE).length);
    for (const { secret = "", messageId: _id, ...f } of found) {
      expect(secret.length).toBeGreaterThan(11);
      const out = JSON.stringify(f);
      expect(out).not.toContain(secret);
      expect(out).not.toContain(secret.slice(0, 8));
      expect(f.fingerprint).toMatch(/^sha256:[0-9a-f]{12}$/);
      expect(f.message).toContain(`${secret.slice(0, 4)}…${secret.slice(-2)}`);
    }
  });
});
