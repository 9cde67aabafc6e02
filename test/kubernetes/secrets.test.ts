// Secrets in manifests (contract section 18): a Secret's `data` is base64, so its values are decoded
// and scanned (a `.dockerconfigjson` pull secret's `auth` decoded again); `stringData` is scanned as
// written; a placeholder stays exempt by the value-scoped filter; findings sit at the manifest line;
// no output holds the decoded value.
import { describe, expect, test } from "vitest";
import { addedFile, FAKE, scan, shown } from "../secrets/helpers.js";
import { runCase } from "../helpers/rule-tester.js";
import { secretScan } from "../../src/checks/secret-scan.js";
import { secretValuesOf } from "../../src/kubernetes/index.js";
import { lines } from "./helpers.js";

const b64 = (s: string): string => Buffer.from(s).toString("base64");
const secret = (...data: string[]) =>
  lines("apiVersion: v1", "kind: Secret", "metadata: { name: creds }", "type: Opaque", "data:", ...data);
const pull = (token: string) =>
  lines(
    "apiVersion: v1",
    "kind: Secret",
    "metadata: { name: ghcr }",
    "type: kubernetes.io/dockerconfigjson",
    "data:",
    `  .dockerconfigjson: ${b64(JSON.stringify({ auths: { "ghcr.io": { auth: b64(`bot:${token}`) } } }))}`,
  );

describe("decoding", () => {
  test("every data value, and a pull secret's auth decoded again", () => {
    const v = secretValuesOf("k8s/pull.yaml", pull(FAKE.ghp));
    expect(v.map((x) => [x.line, x.column, x.where])).toEqual([
      [6, 22, "data..dockerconfigjson"],
      [6, 22, "data..dockerconfigjson auths.ghcr.io.auth"],
    ]);
    expect(v[1]?.text).toBe(`bot:${FAKE.ghp}`);
  });

  test("not base64, or not text (a keystore's bytes): not a value to scan", () => {
    const bin = Buffer.from([0, 159, 146, 150, 1, 2, 3]).toString("base64");
    expect(secretValuesOf("k8s/s.yaml", secret("  a: not base64!", `  b: ${bin}`))).toEqual([]);
  });

  test("a file without a Secret is not parsed", () => {
    expect(secretValuesOf("k8s/d.yaml", lines("kind: Deployment", `data: { a: ${b64("x")} }`))).toEqual([]);
  });
});

describe("the secret scan over manifests", () => {
  test("a plain-text pull secret: refused at its manifest line, the token never shown", async () => {
    const file = addedFile("k8s/pull.yaml", pull(FAKE.ghp));
    const found = await scan([file]);
    expect(found.map((f) => [f.rule, f.file, f.line, f.status, f.secret])).toEqual([
      ["secret/github-token", "k8s/pull.yaml", 6, "open", FAKE.ghp],
    ]);
    expect(found[0]?.message).toContain("decoded from the base64 of the .dockerconfigjson");
    // Every shown field: no decoded token, no base64 of it.
    const out = JSON.stringify(found.map(shown));
    expect(out).not.toContain(FAKE.ghp.slice(4, 20));
    expect(out).not.toContain(b64(`bot:${FAKE.ghp}`).slice(0, 24));
  });

  test("a Secret's data value holding a Hugging Face token (its encoding under a TOKEN key is also a generic secret)", async () => {
    const found = await scan([addedFile("deploy/hf.yaml", secret(`  HF_TOKEN: ${b64(FAKE.hf)}`))]);
    expect(found.map((f) => [f.rule, f.severity, f.line, f.data.column])).toEqual([
      ["secret/generic-secret", "error", 6, 13],
      ["secret/huggingface-token", "error", 6, 13],
    ]);
  });

  test("a block scalar's value (wrapped base64) is decoded whole", async () => {
    const wrapped = b64(FAKE.hf).replace(/(.{20})/, "$1\n    ");
    const found = await scan([addedFile("k8s/hf.yaml", secret("  HF_TOKEN: |", `    ${wrapped}`))]);
    expect(found.filter((f) => f.rule === "secret/huggingface-token").map((f) => [f.line, f.secret])).toEqual([[6, FAKE.hf]]);
  });

  test("a decoded placeholder is exempt by its value, as anywhere", async () => {
    const found = await scan([addedFile("k8s/aws.yaml", secret(`  AWS_ACCESS_KEY_ID: ${b64("AKIAIOSFODNN7EXAMPLE")}`))]);
    expect(found.map((f) => [f.rule, f.status, f.line])).toEqual([["secret/aws-access-key-id", "exempt", 6]]);
  });

  test("stringData is plain text: the line scan finds it as written", async () => {
    const text = lines("kind: Secret", "metadata: { name: hf }", "stringData:", `  HF_TOKEN: ${FAKE.hf}`);
    const found = await scan([addedFile("k8s/hf.yaml", text)]);
    expect(found.map((f) => [f.rule, f.line])).toEqual([["secret/huggingface-token", 4]]);
  });

  test("a change that does not add the data line does not report it", async () => {
    const before = secret(`  HF_TOKEN: ${b64(FAKE.hf)}`);
    const after = before + "# rotated monthly\n";
    const found = await runCase({ name: "x", files: { "k8s/hf.yaml": after }, beforeFiles: { "k8s/hf.yaml": before } }, [secretScan]);
    expect(found).toEqual([]);
  });
});
