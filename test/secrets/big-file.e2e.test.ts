// Issue 15 item 3 / issue 13 item 5: no size cliff. A big staged file is scanned streamed (an added
// one's blob, a modified one's patch spilled to disk past SPILL_BYTES, read back a chunk at a time
// through the keyword sieve), every key in it found at its line; a stream that breaks is the error
// secret/unscanned, never a pass. Here through the built CLI in a real repository; the scans
// themselves (streamed, sieved, broken): big-file.test.ts.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { makeRepo, type TempRepo } from "../helpers/repo.js";
import { kvgate } from "../helpers/cli.js";
import { FAKE, bigText, filler, pem } from "./helpers.js";
import { SPILL_BYTES } from "../../src/git/spill.js";

/** Lines of the big file; enough of them to pass SPILL_BYTES by half. */
const LINES = Math.ceil((SPILL_BYTES * 1.5) / filler(100000).length);

/** The planted lines: 1-based line → text (a key, a placeholder, a private key block across a window edge). */
function planted(): Map<number, string> {
  const m = new Map<number, string>([
    [1, `AWS_ACCESS_KEY_ID=${FAKE.awsId}`],
    [4299, `GITHUB_TOKEN=${FAKE.ghp}`],
    [Math.floor(LINES / 2), `HF_TOKEN=${FAKE.hf}`],
    [Math.floor(LINES / 2) + 1, "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE"],
    [LINES, `OPENAI_API_KEY=${FAKE.openai}`],
  ]);
  // A block whose header sits in one scan window and whose body runs into the next.
  pem(FAKE.privateKeyBody).forEach((t, k) => m.set(4294 + k, t));
  return m;
}

const raw = [FAKE.awsId, FAKE.ghp, FAKE.hf, FAKE.openai, FAKE.privateKeyBody.slice(0, 64)];

describe("a staged file bigger than SPILL_BYTES, through the built CLI", () => {
  let repo: TempRepo;
  beforeAll(async () => {
    repo = await makeRepo();
    repo.write("README.md", "fleet\n");
    repo.stage();
    repo.commit("init");
  });
  afterAll(async () => repo.cleanup());

  test("every planted key is found at its line; the placeholder is exempt; nothing skipped; no raw value", () => {
    const text = bigText(LINES, planted());
    expect(Buffer.byteLength(text)).toBeGreaterThan(SPILL_BYTES);
    repo.write("data/dump.txt", text);
    repo.stage();
    const r = kvgate(["check", "--staged", "--format", "json"], { cwd: repo.dir });
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout) as { findings: { rule: string; status: string; line: number; file: string }[] };
    const got = out.findings.map((f) => `${f.rule} ${f.status} ${f.line}`);
    expect(got).toEqual([
      "secret/aws-access-key-id open 1",
      "secret/private-key open 4294",
      "secret/github-token open 4299",
      `secret/huggingface-token open ${Math.floor(LINES / 2)}`,
      `secret/aws-access-key-id exempt ${Math.floor(LINES / 2) + 1}`,
      `secret/openai-api-key open ${LINES}`,
    ]);
    for (const v of raw) expect(r.stdout).not.toContain(v);
  });

  test("a big modified file: only its added lines, numbered in the new version", () => {
    repo.write("data/dump.txt", bigText(LINES, new Map()));
    repo.stage();
    repo.commit("dump");
    const plant = new Map([[3000, `AWS_ACCESS_KEY_ID=${FAKE.awsId2}`]]);
    // Every other line rewritten, so the patch itself passes SPILL_BYTES, with one key among the new lines.
    const lines = bigText(LINES, plant)
      .split("\n")
      .map((t, i) => (i % 2 === 0 && !plant.has(i + 1) ? `${t} changed` : t));
    repo.write("data/dump.txt", lines.join("\n"));
    repo.stage();
    const r = kvgate(["check", "--staged", "--format", "json"], { cwd: repo.dir });
    const out = JSON.parse(r.stdout) as { findings: { rule: string; line: number }[] };
    expect(out.findings.map((f) => `${f.rule} ${f.line}`)).toEqual(["secret/aws-access-key-id 3000"]);
    expect(r.code).toBe(1);
    expect(r.stdout).not.toContain(FAKE.awsId2);
  });
});
