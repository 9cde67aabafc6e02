import { expect } from "vitest";
import { secretScan } from "../../../src/checks/secret-scan.js";
import { ruleTester, type Expected } from "../../helpers/rule-tester.js";
import { FAKE, addedFile, secretCase } from "../../secrets/helpers.js";
import { SAMPLE, lineFor } from "../../secrets/families.js";
import { secretFingerprint } from "../../../src/secrets/redact.js";

const PH = "AKIA0000000000000EXAMPLE";
const MiB = 1024 * 1024;
/** `rule status severity file:line` and the raw value the report carried. */
const hit = (brief: string, secret?: string): Expected => {
  const [rule, status, severity, where = ""] = brief.split(" ");
  const [file, line] = where.split(":");
  return {
    rule,
    status: status as Expected["status"],
    severity: severity as Expected["severity"],
    file,
    line: line === "null" ? null : Number(line),
    ...(secret === undefined ? {} : { secret }),
  };
};
const overrideFiles = () => [addedFile("a.env", `A=${PH}\nB=${FAKE.awsId}\nDB_PASSWORD=${FAKE.generic}`)];
const pem = (body: string): string =>
  `-----BEGIN RSA PRIVATE KEY-----\n${body.slice(0, 64)}\n${body.slice(64)}\n-----END RSA PRIVATE KEY-----`;
/** A service-account key file as `gcloud iam service-accounts keys create` writes it (made-up key). */
const gcpServiceAccount = (): string =>
  [
    `{`,
    `  "type": "service_account",`,
    `  "project_id": "fleet",`,
    `  "private_key_id": "${"3f9a".repeat(10)}",`,
    `  "private_key": "-----BEGIN PRIVATE KEY-----\\n${FAKE.privateKeyBody}\\n-----END PRIVATE KEY-----\\n",`,
    `  "client_email": "svc@fleet.iam.gserviceaccount.com"`,
    `}`,
  ].join("\n");
/** One file per detector: each rule of the family is raised by this table. */
const PER_DETECTOR: [string, string, string][] = [
  ["anthropic-api-key", `ANTHROPIC_API_KEY=${FAKE.anthropic}`, FAKE.anthropic],
  ["aws-access-key-id", `AWS_ACCESS_KEY_ID=${FAKE.awsId}`, FAKE.awsId],
  ["aws-secret-access-key", `aws_secret_access_key = ${FAKE.awsSecret}`, FAKE.awsSecret],
  ["generic-secret", `DB_PASSWORD="${FAKE.generic}"`, FAKE.generic],
  ["github-pat", `GH_PAT=${FAKE.githubPat}`, FAKE.githubPat],
  ["github-token", `GITHUB_TOKEN=${FAKE.ghp}`, FAKE.ghp],
  ["gitlab-token", `GITLAB_TOKEN=${FAKE.glpat}`, FAKE.glpat],
  ["google-api-key", `GOOGLE_API_KEY=${FAKE.google}`, FAKE.google],
  ["huggingface-token", `HF_TOKEN=${FAKE.hf}`, FAKE.hf],
  ["jwt", `Authorization: Bearer ${FAKE.jwt}`, FAKE.jwt],
  ["openai-api-key", `OPENAI_API_KEY=${FAKE.openai}`, FAKE.openai],
  ["private-key", pem(FAKE.privateKeyBody), FAKE.privateKeyBody],
  // FAKE.slack's sequential digits read as a placeholder (exempt); the seeded sample is a real-shaped token.
  ["slack-token", `SLACK_BOT=${SAMPLE["slack-token"]}`, SAMPLE["slack-token"] as string],
  ["stripe-secret-key", `STRIPE_KEY=${FAKE.stripe}`, FAKE.stripe],
];
// Every other family, from its labelled sample, on the line that family is found on.
const KNOWN = new Set(PER_DETECTOR.map(([id]) => id));
for (const [id, value] of Object.entries(SAMPLE)) if (!KNOWN.has(id)) PER_DETECTOR.push([id, lineFor(id, value), value]);
// In the order findings come out: by file, and `keys/heroku-api-key-legacy.txt` sorts before `keys/heroku-api-key.txt`.
const fileOf = (id: string): string => `keys/${id}.txt`;
PER_DETECTOR.sort(([a], [b]) => (fileOf(a) < fileOf(b) ? -1 : fileOf(a) > fileOf(b) ? 1 : 0));

export default ruleTester(secretScan, {
  valid: [
    secretCase("only the added lines are scanned", [{ ...addedFile("a.env", `A=${FAKE.awsId}`, { status: "modified" }), addedLines: [] }]),
    secretCase("a deleted file is not scanned", [addedFile("a.env", FAKE.awsId, { status: "deleted" })]),
    {
      name: "a reference to a value loaded at deploy time is not a secret",
      beforeFiles: {},
      files: { "scripts/a.env": "AWS_ACCESS_KEY_ID=${AWS_ACCESS_KEY_ID}\nHF_TOKEN={{ lookup('hashi_vault', 'secret=kv/hf:token') }}\n" },
    },
  ],
  invalid: [
    // The value-scoped placeholder filter: [case, file, text, expected, values].
    ...(
      [
        [
          "two copies of the all-zero example id: two exempt notices",
          "skills/aws.md",
          `use ${PH} or ${PH}`,
          ["secret/aws-access-key-id exempt notice skills/aws.md:1", "secret/aws-access-key-id exempt notice skills/aws.md:1"],
          [PH, PH],
        ],
        [
          "the 24-char placeholder is compared whole, not as its 20-char prefix",
          "a.md",
          PH,
          ["secret/aws-access-key-id exempt notice a.md:1"],
          [PH],
        ],
        [
          "a placeholder and a real key on one line: the real one is found (errors sort first)",
          "a.env",
          `EXAMPLE_ID=${PH} REAL_ID=${FAKE.awsId}`,
          ["secret/aws-access-key-id open error a.env:1", "secret/aws-access-key-id exempt notice a.env:1"],
          [FAKE.awsId, PH],
        ],
        [
          "a real key inside a file of placeholders",
          "docs/keys.md",
          `AKIAIOSFODNN7EXAMPLE\nAKIAI44QH8DHBEXAMPLE\n${FAKE.awsId}\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY`,
          [
            "secret/aws-access-key-id exempt notice docs/keys.md:1",
            "secret/aws-access-key-id exempt notice docs/keys.md:2",
            "secret/aws-access-key-id open error docs/keys.md:3",
            "secret/aws-secret-access-key exempt notice docs/keys.md:4",
          ],
          ["AKIAIOSFODNN7EXAMPLE", "AKIAI44QH8DHBEXAMPLE", FAKE.awsId, "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"],
        ],
        [
          "a real key inside docs/examples/: no path exempts",
          "docs/examples/deploy.env",
          `AWS_ACCESS_KEY_ID=${FAKE.awsId}`,
          ["secret/aws-access-key-id open error docs/examples/deploy.env:1"],
          [FAKE.awsId],
        ],
        [
          "a value that merely contains EXAMPLE is found",
          "a.env",
          "AWS_ACCESS_KEY_ID=AKIAQ3VZ7MXKEXAMPLE2",
          ["secret/aws-access-key-id open error a.env:1"],
          ["AKIAQ3VZ7MXKEXAMPLE2"],
        ],
        [
          "a longer run holding a placeholder is not the placeholder",
          "a.env",
          "AKIAIOSFODNN7EXAMPLE2",
          ["secret/aws-access-key-id open error a.env:1"],
          ["AKIAIOSFODNN7EXAMPLE2"],
        ],
        [
          "the example secret key next to its name is exempt",
          "a.ini",
          "aws_secret_access_key=je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY",
          ["secret/aws-secret-access-key exempt notice a.ini:1"],
          ["je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY"],
        ],
      ] as [string, string, string, string[], string[]][]
    ).map(([name, path, text, expected, values]) => ({
      ...secretCase(name, [addedFile(path, text)]),
      findings: expected.map((b, i) => hit(b, values[i])),
    })),
    {
      ...secretCase(
        "kvgate.yaml adds exact values and anchored patterns",
        [addedFile("a.env", `A=${FAKE.awsId}\nB=${FAKE.awsId2}\nC=AKIATEST22222222FAKE`)],
        { values: [FAKE.awsId], patterns: ["AKIATEST2+FAKE"] },
      ),
      findings: [
        "secret/aws-access-key-id exempt notice a.env:1",
        "secret/aws-access-key-id open error a.env:2",
        "secret/aws-access-key-id exempt notice a.env:3",
      ].map((b) => hit(b)),
    },
    {
      ...secretCase(
        "a pattern must match the whole value: a prefix of it is not enough",
        [addedFile("a.env", `A=${FAKE.awsId}\nB=${FAKE.awsId2}\nC=AKIATEST22222222FAKE`)],
        { patterns: ["AKIATEST"] },
      ),
      findings: [
        "secret/aws-access-key-id open error a.env:1",
        "secret/aws-access-key-id open error a.env:2",
        "secret/aws-access-key-id open error a.env:3",
      ].map((b) => hit(b)),
    },
    {
      ...secretCase("an exempt finding says why, naming the built-in list", [addedFile("a.md", PH)]),
      findings: [{ rule: "secret/aws-access-key-id", reason: expect.stringMatching(/listed placeholder value \(rules\/secrets\.yaml\)/) }],
    },
    {
      ...secretCase("an exempt finding names kvgate.yaml's list", [addedFile("a.md", FAKE.awsId)], { values: [FAKE.awsId] }),
      findings: [{ rule: "secret/aws-access-key-id", reason: expect.stringMatching(/\(kvgate\.yaml\)/) }],
    },
    // The override.
    {
      ...secretCase("ALLOW_SECRETS=1 allows secret findings; placeholders stay exempt", overrideFiles(), { env: { ALLOW_SECRETS: "1" } }),
      findings: [
        hit("secret/aws-access-key-id exempt notice a.env:1"),
        {
          ...hit("secret/aws-access-key-id allowed error a.env:2"),
          reason: expect.stringMatching(/allowed by ALLOW_SECRETS=1: this must be recorded/),
        },
        hit("secret/generic-secret allowed error a.env:3"),
      ],
    },
    ...["0", "yes", ""].map((v) => ({
      ...secretCase(`ALLOW_SECRETS=${JSON.stringify(v)} is not the override`, overrideFiles(), { env: { ALLOW_SECRETS: v } }),
      findings: [
        hit("secret/aws-access-key-id exempt notice a.env:1"),
        hit("secret/aws-access-key-id open error a.env:2"),
        hit("secret/generic-secret open error a.env:3"),
      ],
    })),
    {
      ...secretCase("the variable's name comes from secrets.override: ALLOW_SECRETS=1 is not it", overrideFiles(), {
        env: { ALLOW_SECRETS: "1" },
        override: "KVGATE_ALLOW",
      }),
      findings: [
        hit("secret/aws-access-key-id exempt notice a.env:1"),
        hit("secret/aws-access-key-id open error a.env:2"),
        hit("secret/generic-secret open error a.env:3"),
      ],
    },
    {
      ...secretCase("the variable's name comes from secrets.override: KVGATE_ALLOW=1 is", overrideFiles(), {
        env: { KVGATE_ALLOW: "1" },
        override: "KVGATE_ALLOW",
      }),
      findings: [
        hit("secret/aws-access-key-id exempt notice a.env:1"),
        hit("secret/aws-access-key-id allowed error a.env:2"),
        hit("secret/generic-secret allowed error a.env:3"),
      ],
    },
    // What is scanned.
    {
      ...secretCase("only the added lines of a change", [
        {
          ...addedFile("a.env", `A=${FAKE.awsId}\nB=${FAKE.ghp}`, { status: "modified" }),
          addedLines: [{ line: 2, text: `B=${FAKE.ghp}` }],
        },
      ]),
      findings: [hit("secret/github-token open error a.env:2", FAKE.ghp)],
    },
    {
      ...secretCase("a binary file is skipped with a notice", [addedFile("img.png", "", { binary: true, after: null, size: 2048 })]),
      findings: [{ ...hit("secret/skipped open notice img.png:null"), data: { reason: "binary", size_bytes: 2048 } }],
    },
    // .kvgateignore (contract section 15), read from the tree like kvgate.yaml; these cases run as --all.
    {
      name: "a .kvgateignore entry exempts its value with the line's reason; another value stays open",
      files: {
        ".kvgateignore": `${secretFingerprint(FAKE.awsId)} # sample in the runbook @ops until 2999-12-31\n`,
        "a.env": `A=${FAKE.awsId}\nB=${FAKE.ghp}\n`,
      },
      findings: [
        {
          ...hit("secret/aws-access-key-id exempt notice a.env:1", FAKE.awsId),
          reason: "sample in the runbook @ops until 2999-12-31",
          data: { ignore_line: 1, ignore_owner: "ops", ignore_until: "2999-12-31" },
        },
        hit("secret/github-token open error a.env:2", FAKE.ghp),
      ],
    },
    {
      name: "an expired entry exempts no more: the finding is open and says when it expired",
      files: { ".kvgateignore": `${secretFingerprint(FAKE.awsId)} # until 2001-01-31\n`, "a.env": `A=${FAKE.awsId}\n` },
      findings: [
        { ...hit("secret/aws-access-key-id open error a.env:1", FAKE.awsId), data: { ignore_line: 1, ignore_until: "2001-01-31" } },
      ],
    },
    {
      name: "under --all an entry matching nothing is secret/ignore-unused at its line",
      files: { ".kvgateignore": `# accepted\n${secretFingerprint(FAKE.ghp)} # gone\n`, "a.env": "A=1\n" },
      findings: [{ ...hit("secret/ignore-unused open notice .kvgateignore:2"), data: { fingerprint: secretFingerprint(FAKE.ghp) } }],
    },
    {
      name: "a malformed .kvgateignore line is secret/ignore-invalid at its line (an error: it exempts nothing)",
      files: { ".kvgateignore": `${secretFingerprint(FAKE.ghp)} # x\nsha256:12345 # too short\n`, "a.env": `B=${FAKE.ghp}\n` },
      findings: [hit("secret/ignore-invalid open error .kvgateignore:2"), hit("secret/github-token exempt notice a.env:1", FAKE.ghp)],
    },
    // No size cliff (contract section 9): a big file is scanned, streamed when git's patch was spilled.
    {
      ...secretCase("a file over 5 MiB is scanned like any other", [addedFile("big.log", FAKE.awsId, { size: 5 * MiB + 1 })]),
      findings: [hit("secret/aws-access-key-id open error big.log:1")],
    },
    {
      ...secretCase("a streamed 50 MB file: its streamed lines are scanned, at their own numbers", [
        addedFile("dump.txt", "", {
          size: 50_000_000,
          addedLines: [],
          streamedLines: () => [
            { line: 1, text: "rows" },
            { line: 812_500, text: `K=${FAKE.ghp}` },
          ],
        }),
      ]),
      findings: [hit("secret/github-token open error dump.txt:812500", FAKE.ghp)],
    },
    {
      ...secretCase("a stream that breaks is secret/unscanned, an error", [
        addedFile("dump.txt", "", {
          size: 50_000_000,
          addedLines: [],
          streamedLines: () => {
            throw new Error("EIO: i/o error, read");
          },
        }),
      ]),
      findings: [{ ...hit("secret/unscanned open error dump.txt:null"), data: { why: "EIO: i/o error, read", size_bytes: 50_000_000 } }],
    },
    {
      ...secretCase("an excluded file is skipped with a notice", [addedFile("vendor/x/keys.txt", FAKE.awsId)], { exclude: ["vendor/**"] }),
      findings: [{ ...hit("secret/skipped open notice vendor/x/keys.txt:null"), data: { reason: "excluded", glob: "vendor/**" } }],
    },
    {
      ...secretCase("exactly 5 MiB is still scanned", [addedFile("a.env", FAKE.awsId, { size: 5 * MiB })]),
      findings: [hit("secret/aws-access-key-id open error a.env:1")],
    },
    {
      ...secretCase("excludes match dotfiles and only what they name", [addedFile(".secrets/k", FAKE.awsId), addedFile("k", FAKE.awsId)], {
        exclude: [".secrets/**"],
      }),
      findings: [hit("secret/skipped open notice .secrets/k:null"), hit("secret/aws-access-key-id open error k:1")],
    },
    {
      ...secretCase("a GCP service-account JSON file", [addedFile("sa.json", gcpServiceAccount())]),
      findings: [hit("secret/gcp-service-account open error sa.json:5")],
    },
    {
      ...secretCase(
        "each detector, one file each",
        PER_DETECTOR.map(([id, text]) => addedFile(`keys/${id}.txt`, text)),
      ),
      example: true,
      findings: PER_DETECTOR.map(([id, , value]) => ({
        rule: `secret/${id}`,
        status: "open",
        file: `keys/${id}.txt`,
        line: 1,
        secret: value,
      })),
    },
  ],
});
