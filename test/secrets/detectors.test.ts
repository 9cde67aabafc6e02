import { describe, expect, test } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { builtinDetectors, loadDetectors } from "../../src/rules/detectors.js";
import { packRoot } from "../../src/init/package-root.js";
import { scanLines, numberLines } from "../../src/secrets/scan.js";
import { secretScan } from "../../src/checks/secret-scan.js";
import { RULES } from "../../src/checks/registry.js";
import { FAKE } from "./helpers.js";
import { lintRegex } from "./regex-lint.js";

const set = builtinDetectors();
const found = (text: string): { rule: string; value: string; line: number; column: number }[] =>
  scanLines(numberLines(text), set).map((m) => ({ rule: m.detector.rule, value: m.value, line: m.line, column: m.column }));

const pem = (body: string, kind = "RSA "): string =>
  `-----BEGIN ${kind}PRIVATE KEY-----\n${body.slice(0, 64)}\n${body.slice(64)}\n-----END ${kind}PRIVATE KEY-----`;

/** The empty tree's id, as a `Kvgate-Verdict: pass tree=…` trailer names it (docs/rules/audit-verdict-mismatch.md). */
const TREE_ID = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

// [detector, text, expected value (null: no finding)]
const TRUE_POSITIVES: [string, string, string][] = [
  ["aws-access-key-id", `AWS_ACCESS_KEY_ID=${FAKE.awsId}`, FAKE.awsId],
  ["aws-access-key-id", `key: "${FAKE.awsId2}"`, FAKE.awsId2],
  ["aws-access-key-id", `id=A3TX${FAKE.awsId.slice(4)}`, `A3TX${FAKE.awsId.slice(4)}`],
  ["aws-secret-access-key", `aws_secret_access_key = ${FAKE.awsSecret}`, FAKE.awsSecret],
  ["aws-secret-access-key", `AWS_SECRET_ACCESS_KEY: "${FAKE.awsSecret}"`, FAKE.awsSecret],
  ["aws-secret-access-key", `{"SecretAccessKey": "${FAKE.awsSecret}"}`, FAKE.awsSecret],
  ["aws-secret-access-key", `aws configure set --aws-secret-access-key ${FAKE.awsSecret}`, FAKE.awsSecret],
  ["github-token", `GITHUB_TOKEN=${FAKE.ghp}`, FAKE.ghp],
  ["github-token", `token ${FAKE.ghp.replace("ghp_", "gho_")}`, FAKE.ghp.replace("ghp_", "gho_")],
  ["github-token", `x-access-token:${FAKE.ghp.replace("ghp_", "ghs_")}@github.com`, FAKE.ghp.replace("ghp_", "ghs_")],
  ["github-pat", `GH_PAT=${FAKE.githubPat}`, FAKE.githubPat],
  ["gitlab-token", `GITLAB_TOKEN=${FAKE.glpat}`, FAKE.glpat],
  ["slack-token", `SLACK_BOT=${FAKE.slack}`, FAKE.slack],
  ["private-key", pem(FAKE.privateKeyBody), FAKE.privateKeyBody],
  [
    "private-key",
    `{"private_key": "-----BEGIN PRIVATE KEY-----\\n${FAKE.privateKeyBody}\\n-----END PRIVATE KEY-----\\n"}`,
    FAKE.privateKeyBody,
  ],
  ["anthropic-api-key", `ANTHROPIC_API_KEY=${FAKE.anthropic}`, FAKE.anthropic],
  ["openai-api-key", `OPENAI_API_KEY=${FAKE.openai}`, FAKE.openai],
  ["openai-api-key", `openai.api_key = '${FAKE.openaiLegacy}'`, FAKE.openaiLegacy],
  ["huggingface-token", `HF_TOKEN=${FAKE.hf}`, FAKE.hf],
  ["google-api-key", `GOOGLE_API_KEY=${FAKE.google}`, FAKE.google],
  ["stripe-secret-key", `STRIPE_KEY=${FAKE.stripe}`, FAKE.stripe],
  ["stripe-secret-key", `STRIPE_TEST_KEY=sk_test_${FAKE.stripe.slice(8)}`, `sk_test_${FAKE.stripe.slice(8)}`],
  ["jwt", `Authorization: Bearer ${FAKE.jwt}`, FAKE.jwt],
  ["generic-secret", `DB_PASSWORD="${FAKE.generic}"`, FAKE.generic],
  ["generic-secret", `  api_key: ${FAKE.generic}`, FAKE.generic],
  ["generic-secret", `{"token": "${FAKE.generic}"}`, FAKE.generic],
  ["generic-secret", `REDIS_SECRET_KEY=${FAKE.generic}`, FAKE.generic],
  // kvgate's redacted form is passed over (false positives below), a plaintext of that length is not.
  ["ansible-vault-plaintext", "db_password: !vault yixF.Rs", "yixF.Rs"],
  // kvgate's verdict trailer is passed over only with a git object id as its value (false positives below).
  ["generic-secret", `Kvgate-Verdict: pass tree=${FAKE.generic}`, FAKE.generic],
  ["generic-secret", `Kvgate-Verdict: pass tree=${TREE_ID}0`, `${TREE_ID}0`],
  ["generic-secret", `deploy pass tree=${TREE_ID}`, TREE_ID],
];

// Real-shaped values that are only a reference's text: found without the reference rule, not with it.
const REFERENCES: [string, string][] = [
  ["hashi_vault lookup", `password: "{{ lookup('hashi_vault', 'secret=Zx9Cv8Bn7Mq6Wl5Ek4Rj url=https://vault') }}"`],
  ["vault: prefix", `AWS_ACCESS_KEY_ID=vault:${FAKE.awsId}`],
  ["${...} enclosure", `GITHUB_TOKEN="\${${FAKE.ghp}}"`],
];

// [why, text]: nothing is reported.
const FALSE_POSITIVES: [string, string][] = [
  ["AWS id too short", `AKIA${FAKE.awsId.slice(4, 19)}`],
  ["AWS id lowercase", FAKE.awsId.toLowerCase()],
  ["AWS id inside a longer word", `X${FAKE.awsId}`],
  ["40 base64 chars with no AWS secret name", `checksum = ${FAKE.awsSecret}`],
  ["AWS secret name, low-entropy value", `aws_secret_access_key = ${"A".repeat(40)}`],
  ["AWS secret name, short value", `aws_secret_access_key = abc123`],
  ["ghp_ too short", "ghp_abc123"],
  ["unknown gh prefix", `ghx_${FAKE.ghp.slice(4)}`],
  ["github_pat_ too short", "github_pat_abc"],
  ["glpat- too short", "glpat-abc"],
  ["xox with no digits", "xoxb-notatoken-atall"],
  ["a private key header in code", `if line.startswith("-----BEGIN RSA PRIVATE KEY-----"):`],
  [
    "a private key header in code, a public key block after it",
    `if line.startswith("-----BEGIN RSA PRIVATE KEY-----"):\n-----BEGIN PUBLIC KEY-----\n${FAKE.privateKeyBody}\n-----END PUBLIC KEY-----`,
  ],
  ["a public key block", `-----BEGIN PUBLIC KEY-----\n${FAKE.privateKeyBody}\n-----END PUBLIC KEY-----`],
  ["sk- inside a word", `ask-${FAKE.openaiLegacy.slice(3)}`],
  ["sk- too short", "sk-abc"],
  ["hf_ flags", `HF_OVERRIDES='{"rope_scaling":{"rope_type":"yarn"}}' hf_hub_enable_hf_transfer=1`],
  ["AIza too short", "AIzaSyShort"],
  ["a lone JWT header", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"],
  ["env reference", "password: ${DB_PASSWORD}"],
  ["env reference in shell", 'DB_PASSWORD="${DB_PASSWORD:?set it}"'],
  ...REFERENCES,
  ["a token count", "MAX_NUM_BATCHED_TOKENS=8192"],
  ["max tokens", `--override-generation-config '{"max_new_tokens": 2048}'`],
  ["a known word", "password=changeme"],
  ["an identifier", "secret_name: my_app_database_secret_v2"],
  ["an env var name", "password: DB_PASSWORD_FROM_ENV"],
  ["a tokenizer", "TOKENIZER=Qwen/Qwen3-8B-Instruct"],
  ["a dotted setting", "token: settings.auth.github.token_value"],
  ["a repeated char", "password: ****************"],
  ["a version", "secret_version: 2026.10.05-1234567"],
  ["kvgate's redacted form under a !vault tag", "db_password: !vault yixF…Rs"],
  ["kvgate's verdict trailer: a tree id", `Kvgate-Verdict: pass tree=${TREE_ID}`],
  ["kvgate's verdict trailer: a SHA-256 tree id", `Kvgate-Verdict: pass tree=${"4b825dc642cb6eb9".repeat(4)}`],
];

describe("detectors: true positives", () => {
  test.each(TRUE_POSITIVES)("%s in %j", (detector, text, value) => {
    const f = found(text);
    expect(f.map((x) => x.rule)).toEqual([`secret/${detector}`]);
    expect(f[0]?.value).toBe(value);
    expect(f[0]?.line).toBe(1);
  });
});

describe("detectors: false positives", () => {
  test.each(FALSE_POSITIVES)("%s", (_why, text) => {
    expect(found(text)).toEqual([]);
  });
});

test.each(REFERENCES)("the reference syntax is what skips: %s", (_why, text) => {
  // The same value outside the reference is found.
  const bare = text.replace("vault:", "").replace("${", "").replace("}}", "").replace("{{ lookup('hashi_vault', '", "").replace("') ", " ");
  expect(found(bare)).toHaveLength(1);
  expect(found(text)).toEqual([]);
});

describe("detectors: attribution", () => {
  test("sk-ant- is anthropic, never also openai", () => {
    expect(found(`${FAKE.anthropic} ${FAKE.openai}`).map((x) => x.rule)).toEqual(["secret/anthropic-api-key", "secret/openai-api-key"]);
  });
  test("a token a specific detector found is not reported again by the generic one", () => {
    expect(found(`GITHUB_TOKEN=${FAKE.ghp}`).map((x) => x.rule)).toEqual(["secret/github-token"]);
    expect(found(`password: "${FAKE.jwt}"`).map((x) => x.rule)).toEqual(["secret/jwt"]);
  });
  test("columns and lines are reported", () => {
    const f = found(`# keys\nA=1 B=${FAKE.awsId}\n`);
    expect(f).toEqual([{ rule: "secret/aws-access-key-id", value: FAKE.awsId, line: 2, column: 7 }]);
  });
  test("the private key value is its body, reported at the header line", () => {
    const f = found(`x\n${pem(FAKE.privateKeyBody, "OPENSSH ")}`);
    expect(f.map((x) => [x.rule, x.line, x.value.length])).toEqual([["secret/private-key", 2, FAKE.privateKeyBody.length]]);
  });
});

describe("detectors: linear time", () => {
  const MiB = 1024 * 1024;
  const fill = (unit: string): string => unit.repeat(Math.ceil(MiB / unit.length)).slice(0, MiB);
  // No wall-clock assertion (it fails on a loaded machine, and speed is measured in bench/): a
  // backtracking pattern over 1 MiB runs for hours, so the test's timeout alone tells linear from not.
  for (const d of set.detectors) {
    test(`${d.id}: 1 MiB adversarial lines finish (linear time)`, () => {
      // A gated detector (no keyword): the start of its gate's dotted shape, repeated.
      const kw = d.keywords[0] ?? ".aB3dE.";
      const variants = [
        fill(kw),
        fill(kw.toUpperCase()),
        fill(`${kw}=`),
        fill(`${kw}${"A".repeat(15)}-`),
        fill(`${kw}"  : "`),
        `${kw.toUpperCase()}${"A".repeat(MiB)}`,
        `${kw}=${"aB3/".repeat(MiB / 4)}`,
        fill("-----BEGIN " + "PRIVATE KEY-----"),
        fill("eyJ"),
        `${kw}${" ".repeat(MiB)}`,
      ];
      // The detector alone: the scan's cost is the sum of its detectors', each linear in the line.
      const alone = { ...set, detectors: [d] };
      for (const line of variants) {
        expect(() => scanLines([{ line: 1, text: line }], alone)).not.toThrow();
      }
    }, 60_000);
  }

  test("every detector together: a 1 MiB line of each adversarial kind finishes", () => {
    const lines = [
      fill("akia"),
      fill("token="),
      fill("eyJ"),
      fill("://a:b@"),
      fill("${X:-"),
      fill("{{ default('"),
      fill(".a"),
      "x".repeat(MiB),
    ];
    for (const text of lines) expect(() => scanLines([{ line: 1, text }], set)).not.toThrow();
  }, 60_000);

  test.each(set.detectors.map((d) => [d.id, d.regex.source] as const))("%s: regex has no nested or unbounded quantifier", (_id, source) => {
    expect(lintRegex(source)).toEqual({ nested: false, unbounded: false });
  });

  test("the lint itself catches the classic shapes", () => {
    expect(lintRegex("(a+)+")).toEqual({ nested: true, unbounded: true });
    expect(lintRegex("(?:[a-z]{1,3}){2,5}")).toEqual({ nested: true, unbounded: false });
    expect(lintRegex("x[a-z]{16,}")).toEqual({ nested: false, unbounded: true });
    expect(lintRegex("AKIA[A-Z0-9]{16}")).toEqual({ nested: false, unbounded: false });
  });
});

describe("rules/secrets.yaml", () => {
  const file = join(packRoot(), "rules", "secrets.yaml");
  const text = readFileSync(file, "utf8");

  test("holds every detector of contract section 9 and the built-in placeholders", () => {
    const ids = set.detectors.map((d) => d.id);
    for (const id of [
      "aws-access-key-id",
      "aws-secret-access-key",
      "github-token",
      "github-pat",
      "gitlab-token",
      "slack-token",
      "private-key",
      "anthropic-api-key",
      "openai-api-key",
      "huggingface-token",
      "google-api-key",
      "stripe-secret-key",
      "jwt",
      "generic-secret",
    ])
      expect(ids).toContain(id);
    expect(ids).toHaveLength(66);
    // Every detector blocks: the specific formats and, above its entropy floor, the generic one.
    expect(set.detectors.filter((d) => d.severity !== "error").map((d) => d.id)).toEqual([]);
    expect(ids.at(-1)).toBe("generic-secret");
    expect(ids.indexOf("anthropic-api-key")).toBeLessThan(ids.indexOf("openai-api-key"));
    for (const v of [
      "AKIAIOSFODNN7EXAMPLE",
      "AKIAI44QH8DHBEXAMPLE",
      "ASIAIOSFODNN7EXAMPLE",
      "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
      "je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY",
      "AKIA0000000000000EXAMPLE",
    ]) {
      expect(set.placeholders.values).toContain(v);
    }
  });

  test("secret/scan reports one rule per detector plus the skipped rule; the audit rules are registered", () => {
    expect((secretScan.family ?? []).map((r) => `${r.id}:${r.severity}`)).toEqual([
      ...set.detectors.map((d) => `${d.rule}:${d.severity}`),
      "secret/skipped:notice",
      "secret/ignore-unused:notice",
      "secret/ignore-invalid:error",
      "secret/unscanned:error",
    ]);
    const registered = new Set(RULES.map((r) => `${r.id}:${r.severity}`));
    for (const id of [
      ...set.detectors.map((d) => `${d.rule}:${d.severity}`),
      "secret/skipped:notice",
      "secret/unscanned:error",
      "audit/override-unneeded:notice",
      "audit/secret-landed:error",
      "audit/bypass:error",
      "audit/verdict-mismatch:error",
    ]) {
      expect(registered.has(id), id).toBe(true);
    }
  });

  test.each([
    ["a duplicate id", text.replace("id: github-pat", "id: github-token"), /listed twice/],
    [
      "a bad regex",
      text.replace("regex: 'hf_[A-Za-z0-9]{30}'", "regex: 'hf_[A-Z'"),
      /detectors\.17\.regex: not a valid regular expression/,
    ],
    [
      "an uppercase file_context",
      text.replace("file_context: [service_account]", "file_context: [Service_account]"),
      /file_context entries are lowercase/,
    ],
    ["a lookup name that is not a word", text.replace("lookups: [lookup, query, q]", "lookups: [lookup(]"), /references\.lookups/],
    ["an unknown key", text.replace("  - id: jwt\n", "  - id: jwt\n    colour: red\n"), /unknown key "colour"/],
    ["an uppercase keyword", text.replace("keywords: [eyj]", "keywords: [eyJ]"), /keywords are lowercase/],
    ["a YAML error", `${text}\n  - : [`, /rules\/secrets.yaml/],
  ])("a broken file is refused with its problem: %s", (_why, broken, error) => {
    expect(() => loadDetectors(broken, "rules/secrets.yaml")).toThrow(error);
  });
});
