import { describe, expect, test } from "vitest";
import { FAKE, addedFile, scan, toFinding } from "./helpers.js";
import type { Report } from "../../src/checks/define.js";

const PH = "AKIA0000000000000EXAMPLE";
const brief = (rs: Report[]): string[] => rs.map((r) => `${r.rule} ${r.status ?? "open"} ${r.severity} ${r.file}:${r.line}`);

describe("value-scoped placeholder filter", () => {
  test.each([
    // [case, file path, text, expected rule/status/severity/location, expected values]
    ["two copies of the all-zero example id: two exempt notices", "skills/aws.md", `use ${PH} or ${PH}`, ["secret/aws-access-key-id exempt notice skills/aws.md:1", "secret/aws-access-key-id exempt notice skills/aws.md:1"], [PH, PH]],
    ["the 24-char placeholder is compared whole, not as its 20-char prefix", "a.md", PH, ["secret/aws-access-key-id exempt notice a.md:1"], [PH]],
    ["a placeholder and a real key on one line: the real one is found", "a.env", `EXAMPLE_ID=${PH} REAL_ID=${FAKE.awsId}`, ["secret/aws-access-key-id exempt notice a.env:1", "secret/aws-access-key-id open error a.env:1"], [PH, FAKE.awsId]],
    ["a real key inside a file of placeholders", "docs/keys.md", `AKIAIOSFODNN7EXAMPLE\nAKIAI44QH8DHBEXAMPLE\n${FAKE.awsId}\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY`, ["secret/aws-access-key-id exempt notice docs/keys.md:1", "secret/aws-access-key-id exempt notice docs/keys.md:2", "secret/aws-access-key-id open error docs/keys.md:3", "secret/aws-secret-access-key exempt notice docs/keys.md:4"], ["AKIAIOSFODNN7EXAMPLE", "AKIAI44QH8DHBEXAMPLE", FAKE.awsId, "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"]],
    ["a real key inside docs/examples/: no path exempts", "docs/examples/deploy.env", `AWS_ACCESS_KEY_ID=${FAKE.awsId}`, ["secret/aws-access-key-id open error docs/examples/deploy.env:1"], [FAKE.awsId]],
    ["a value that merely contains EXAMPLE is found", "a.env", "AWS_ACCESS_KEY_ID=AKIAQ3VZ7MXKEXAMPLE1", ["secret/aws-access-key-id open error a.env:1"], ["AKIAQ3VZ7MXKEXAMPLE1"]],
    ["a longer run holding a placeholder is not the placeholder", "a.env", "AKIAIOSFODNN7EXAMPLE2", ["secret/aws-access-key-id open error a.env:1"], ["AKIAIOSFODNN7EXAMPLE2"]],
    ["the example secret key next to its name is exempt", "a.ini", "aws_secret_access_key=je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY", ["secret/aws-secret-access-key exempt notice a.ini:1"], ["je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY"]],
  ])("%s", (_case, path, text, expected, values) => {
    const rs = scan([addedFile(path, text)]);
    expect(brief(rs)).toEqual(expected);
    expect(rs.map((r) => r.secret)).toEqual(values);
  });

  test("kvgate.yaml adds exact values and anchored patterns", () => {
    const text = `A=${FAKE.awsId}\nB=${FAKE.awsId2}\nC=AKIATEST0000000000FAKE`;
    expect(brief(scan([addedFile("a.env", text)], { values: [FAKE.awsId], patterns: ["AKIATEST0+FAKE"] }))).toEqual([
      "secret/aws-access-key-id exempt notice a.env:1",
      "secret/aws-access-key-id open error a.env:2",
      "secret/aws-access-key-id exempt notice a.env:3",
    ]);
    // A pattern must match the whole value: a prefix of it is not enough.
    expect(brief(scan([addedFile("a.env", text)], { patterns: ["AKIATEST"] }))).toEqual([
      "secret/aws-access-key-id open error a.env:1",
      "secret/aws-access-key-id open error a.env:2",
      "secret/aws-access-key-id open error a.env:3",
    ]);
  });

  test("an invalid user pattern is an error naming it", () => {
    expect(() => scan([addedFile("a.env", "x")], { patterns: ["AKIA(["] })).toThrow(/placeholder pattern "AKIA\(\[" is not a valid regular expression/);
  });

  test("exempt findings say why, and name the list", () => {
    const [r] = scan([addedFile("a.md", PH)], { values: [] });
    expect(r?.reason).toMatch(/listed placeholder value \(rules\/secrets\.yaml\)/);
    const [u] = scan([addedFile("a.md", FAKE.awsId)], { values: [FAKE.awsId] });
    expect(u?.reason).toMatch(/\(kvgate\.yaml\)/);
  });
});

describe("the override", () => {
  const files = () => [addedFile("a.env", `A=${PH}\nB=${FAKE.awsId}\nDB_PASSWORD=${FAKE.generic}`)];
  test("ALLOW_SECRETS=1 allows secret findings; placeholders stay exempt", () => {
    const rs = scan(files(), { env: { ALLOW_SECRETS: "1" } });
    expect(brief(rs)).toEqual(["secret/aws-access-key-id exempt notice a.env:1", "secret/aws-access-key-id allowed error a.env:2", "secret/generic-secret allowed error a.env:3"]);
    expect(rs[1]?.reason).toMatch(/allowed by ALLOW_SECRETS=1: this must be recorded/);
  });
  test.each([["0"], ["yes"], [""]])("ALLOW_SECRETS=%j is not the override", (v) => {
    expect(brief(scan(files(), { env: { ALLOW_SECRETS: v } }))[1]).toBe("secret/aws-access-key-id open error a.env:2");
  });
  test("the variable's name comes from secrets.override", () => {
    expect(brief(scan(files(), { env: { ALLOW_SECRETS: "1" }, override: "KVGATE_ALLOW" }))[1]).toBe("secret/aws-access-key-id open error a.env:2");
    expect(brief(scan(files(), { env: { KVGATE_ALLOW: "1" }, override: "KVGATE_ALLOW" }))[1]).toBe("secret/aws-access-key-id allowed error a.env:2");
  });
});

describe("what is scanned", () => {
  test("only the added lines of a change", () => {
    const f = addedFile("a.env", `A=${FAKE.awsId}\nB=${FAKE.ghp}`, { status: "modified" });
    f.addedLines = f.addedLines.filter((l) => l.line === 2);
    expect(brief(scan([f]))).toEqual(["secret/github-token open error a.env:2"]);
  });
  test.each([
    ["binary", addedFile("img.png", "", { binary: true, after: null, size: 2048 }), { reason: "binary", size_bytes: 2048 }, {}],
    ["over 5 MiB", addedFile("big.log", FAKE.awsId, { size: 5 * 1024 * 1024 + 1 }), { reason: "too-large", size_bytes: 5 * 1024 * 1024 + 1, limit_bytes: 5 * 1024 * 1024 }, {}],
    ["excluded", addedFile("vendor/x/keys.txt", FAKE.awsId), { reason: "excluded", glob: "vendor/**" }, { exclude: ["vendor/**"] }],
  ])("a %s file is skipped with a notice", (_why, file, data, o) => {
    const rs = scan([file], o);
    expect(brief(rs)).toEqual([`secret/skipped open notice ${file.path}:null`]);
    expect(rs[0]?.data).toMatchObject(data);
  });
  test("exactly 5 MiB is still scanned; deleted files are not", () => {
    expect(brief(scan([addedFile("a.env", FAKE.awsId, { size: 5 * 1024 * 1024 })]))).toEqual(["secret/aws-access-key-id open error a.env:1"]);
    expect(scan([addedFile("a.env", FAKE.awsId, { status: "deleted" })])).toEqual([]);
  });
  test("excludes match dotfiles and only what they name", () => {
    expect(brief(scan([addedFile(".secrets/k", FAKE.awsId), addedFile("k", FAKE.awsId)], { exclude: [".secrets/**"] }))).toEqual([
      "secret/skipped open notice .secrets/k:null",
      "secret/aws-access-key-id open error k:1",
    ]);
  });
});

describe("no raw value outside Report.secret", () => {
  const all = Object.entries(FAKE).map(([k, v]) =>
    k === "privateKeyBody" ? `-----BEGIN PRIVATE KEY-----\n${v}\n-----END PRIVATE KEY-----` : k === "awsSecret" ? `aws_secret_access_key = ${v}` : `X_TOKEN=${v}`,
  );
  test.each([[{}], [{ ALLOW_SECRETS: "1" }]])("env %j: message and data never hold a value; rendered findings are redacted", (env) => {
    const rs = scan([addedFile("a.env", all.join("\n"))], { env });
    expect(rs).toHaveLength(Object.keys(FAKE).length);
    for (const r of rs) {
      const secret = r.secret ?? "";
      expect(secret.length).toBeGreaterThan(11);
      expect(JSON.stringify(r.data)).not.toContain(secret);
      expect(r.reason ?? "").not.toContain(secret);
      const f = toFinding(r);
      const out = JSON.stringify(f);
      expect(out).not.toContain(secret);
      expect(out).not.toContain(secret.slice(0, 8));
      expect(f.fingerprint).toMatch(/^sha256:[0-9a-f]{12}$/);
      expect(f.message).toContain(`${secret.slice(0, 4)}…${secret.slice(-2)}`);
    }
  });
});
