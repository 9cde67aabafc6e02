// The audit's reading of a history through the secret scan's sieve (src/git/light-patch.ts) against
// the full reading (every added line, parsePatch): on a real repository whose commits hold every kind
// of change the scan cares about, each commit's secret findings, binary files and skipped files are
// the same, and the sieve decodes only a few of the lines.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { openRepo } from "../../src/git/index.js";
import type { RangeCommit } from "../../src/git/range.js";
import { builtinDetectors } from "../../src/rules/detectors.js";
import { keywordSieve, scanLines, scanStream } from "../../src/secrets/scan.js";
import { SPILL_BYTES } from "../../src/git/spill.js";
import { makeRepo, type TempRepo } from "../helpers/repo.js";
import { FAKE } from "../secrets/helpers.js";
import { SAMPLE } from "../secrets/families.js";

const set = builtinDetectors();
const pem = (body: string): string =>
  `-----BEGIN RSA PRIVATE KEY-----\n${body.slice(0, 64)}\n${body.slice(64)}\n-----END RSA PRIVATE KEY-----\n`;
/** Lines of code with dots, URLs and assignments, a secret word on one in 25, none a secret. */
const code = (n: number, salt: string): string =>
  Array.from({ length: n }, (_, i) =>
    i % 25 === 0
      ? `if (token.type === tt.name) i++; // ${salt}`
      : `const value${i} = this.parser.next(${i}); // see https://example.com/${salt}/${i}.html`,
  ).join("\n") + "\n";

let repo: TempRepo;
let base = "";

beforeAll(async () => {
  repo = await makeRepo();
  repo.write("README.md", "fleet\n");
  repo.write(".gitattributes", "*.dat binary\n*.txt diff\n");
  repo.stage();
  base = repo.commit("base", { noVerify: true });
  const commits: [string, () => void][] = [
    ["keys among code", () => repo.write("src/a.js", `${code(300, "a")}const k = "${FAKE.awsId}";\n${code(50, "b")}GH=${FAKE.ghp}\n`)],
    ["a private key block", () => repo.write("keys/deploy.pem", pem(FAKE.privateKeyBody))],
    [
      "a service account: its context on another line than its key",
      () =>
        repo.write(
          "keys/sa.json",
          `{\n  "type": "service_account",\n  "project_id": "p",\n  "private_key": "-----BEGIN PRIVATE KEY-----\\n${FAKE.privateKeyBody}\\n-----END PRIVATE KEY-----\\n"\n}\n`,
        ),
    ],
    [
      "gated and short-keyword families, a generic assignment",
      () =>
        repo.write(
          "app/bot.js",
          [
            `client.login("${SAMPLE["discord-bot-token"] ?? ""}");`,
            `curl https://api.telegram.org/bot${SAMPLE["telegram-bot-token"] ?? ""}/getMe`,
            `AZURE_CLIENT_SECRET=${SAMPLE["azure-ad-client-secret"] ?? ""}`,
            `TWILIO_API_KEY=${SAMPLE["twilio-api-key"] ?? ""}`,
            `DB_PASSWORD="${FAKE.generic}"`,
            "if (token.type === tt.name) return passwordField;",
            "",
          ].join("\n"),
        ),
    ],
    [
      "values on the line after their names",
      () => {
        // Read joined to the line before (src/secrets/units.ts): the sieve keeps the line after a hit.
        repo.write("conf/app.xml", `<config>\n  <password>\n    ${FAKE.generic}\n  </password>\n</config>\n`);
        repo.write("deploy/compose.yaml", `services:\n  seat:\n    command:\n      - --api-key\n      - ${FAKE.generic}\n`);
      },
    ],
    ["a binary file by content", () => repo.write("img/logo.bin", Buffer.from([0, 1, 2, 0, 255, 0, 10, 65]))],
    ["a binary file by attribute", () => repo.write("data/table.dat", `${FAKE.awsId}\n`)],
    ["a NUL in a file forced to text", () => repo.write("logs/raw.txt", `ok\nnul\0here ${FAKE.awsId}\n`)],
    [
      "a rename with an added key",
      () => {
        repo.git("mv", "src/a.js", "src/b.js");
        repo.write(
          "src/b.js",
          `${code(300, "a")}const k = "${FAKE.awsId}";\n${code(50, "b")}GH=${FAKE.ghp}\nNPM=${SAMPLE["npm-token"] ?? ""}\n`,
        );
      },
    ],
    ["CRLF lines", () => repo.write("win/app.env", `A=1\r\nOPENAI_API_KEY=${FAKE.openai}\r\nB=2\r\n`)],
    [
      "a big file (its hunks spilled by the full reading), keys and a block in it",
      () => {
        const lines: string[] = [];
        let bytes = 0;
        for (let i = 0; bytes <= SPILL_BYTES + 1000; i++) {
          const l = i % 5000 === 17 ? `K${i}=${FAKE.glpat}` : `row ${i}: seat card ledger pool setting=${i % 977}`;
          lines.push(l);
          bytes += l.length + 2;
        }
        lines.splice(30_000, 0, ...pem(FAKE.privateKeyBody).trimEnd().split("\n"));
        // The value on line 40,002, the line after its element (reported there, as conf/app.xml:3 is).
        lines.splice(40_000, 0, "  <password>", `    ${FAKE.generic}`, "  </password>");
        repo.write("dump/big.log", `${lines.join("\n")}\n`);
      },
    ],
    ["a deletion", () => repo.remove("app/bot.js")],
  ];
  for (const [message, change] of commits) {
    change();
    repo.stage();
    repo.commit(message, { noVerify: true });
  }
}, 120_000);

afterAll(async () => {
  await repo.cleanup();
});

/** What the secret scan makes of a commit: its findings, binary and streamed files. */
function summary(c: RangeCommit): string[] {
  const sieve = keywordSieve(set);
  return c.files.flatMap((f) => {
    const head = `${c.commit.subject}: ${f.path}`;
    if (f.binary) return [`${head} binary`];
    const matches = f.streamedLines ? [...scanStream(f.streamedLines(sieve), set)] : scanLines(f.addedLines, set);
    return [
      ...(f.streamedLines ? [`${head} streamed`] : []),
      ...matches.map((m) => `${head}:${m.line}:${m.column} ${m.detector.id} ${m.value.length}`),
    ];
  });
}

async function read(sieved: boolean): Promise<RangeCommit[]> {
  const r = await openRepo(repo.dir);
  const out: RangeCommit[] = [];
  for await (const c of r.addedLinesInRange(`${base}..HEAD`, undefined, sieved ? keywordSieve(set) : undefined)) out.push(c);
  return out;
}

describe("a history read through the secret scan's sieve", () => {
  test("gives every commit the findings, binary files and streamed files of the full reading", async () => {
    const [full, light] = await Promise.all([read(false), read(true)]);
    expect(light.map((c) => c.commit.sha)).toEqual(full.map((c) => c.commit.sha));
    const want = full.flatMap(summary);
    expect(light.flatMap(summary)).toEqual(want);
    // The table says what the scan found: every planted family, the block, the big file's keys.
    const found = want.join("\n");
    for (const id of [
      "aws-access-key-id",
      "github-token",
      "private-key",
      "gcp-service-account",
      "discord-bot-token",
      "telegram-bot-token",
      "azure-ad-client-secret",
      "twilio-api-key",
      "generic-secret",
      "npm-token",
      "openai-api-key",
      "gitlab-token",
    ])
      expect(found).toContain(` ${id} `);
    for (const joined of [
      "values on the line after their names: conf/app.xml:3:5",
      "values on the line after their names: deploy/compose.yaml:5:9",
    ])
      expect(want).toContainEqual(expect.stringContaining(`${joined} generic-secret`));
    expect(want).toContainEqual(expect.stringMatching(/^a big file .*: dump\/big\.log:40002:5 generic-secret /));
    expect(want).toContain("a binary file by content: img/logo.bin binary");
    expect(want).toContain("a binary file by attribute: data/table.dat binary");
    expect(want).toContain("a NUL in a file forced to text: logs/raw.txt binary");
    expect(want).toContain("a big file (its hunks spilled by the full reading), keys and a block in it: dump/big.log streamed");
  }, 60_000);

  test("decodes only the lines that may hold a secret, with their numbers", async () => {
    const [full, light] = await Promise.all([read(false), read(true)]);
    const count = (cs: RangeCommit[]): number => cs.flatMap((c) => c.files).reduce((n, f) => n + f.addedLines.length, 0);
    expect(count(full)).toBeGreaterThan(350);
    // Keys, secret words and the block's lines, and the line after each (a value on the line after its
    // name, read joined to it): a few dozen of the hundreds of lines of code.
    expect(count(light)).toBeLessThan(count(full) / 5);
    const keys = light.find((c) => c.commit.subject === "keys among code")?.files[0]?.addedLines ?? [];
    expect(keys.map((l) => l.line)).toContain(301);
    expect(keys.find((l) => l.line === 301)?.text).toBe(`const k = "${FAKE.awsId}";`);
    // No size lookup for a binary file: git says it is binary, and that is all the scan shows.
    const bin = light.flatMap((c) => c.files).find((f) => f.path === "img/logo.bin");
    expect(bin).toMatchObject({ binary: true, size: null, addedLines: [] });
  }, 60_000);
});
