// Issue 15 item 7 / contract section 15: `.kvgateignore` (value fingerprints, an owner, an expiry)
// and `check --baseline FILE`, through the built CLI in real repositories (the file's parser: ignore.test.ts).
import { afterEach, describe, expect, test } from "vitest";
import { makeRepo, type TempRepo } from "../helpers/repo.js";
import { kvgate } from "../helpers/cli.js";
import { FAKE } from "./helpers.js";
import { secretFingerprint } from "../../src/secrets/redact.js";

interface Out {
  verdict: string;
  findings: {
    rule: string;
    status: string;
    severity: string;
    file: string;
    line: number | null;
    message: string;
    reason?: string;
    fingerprint: string;
  }[];
}
const json = (stdout: string): Out => JSON.parse(stdout) as Out;
const brief = (o: Out): string[] => o.findings.map((f) => `${f.rule} ${f.status} ${f.file}:${f.line}`);

const FP_AWS = secretFingerprint(FAKE.awsId);
const FP_GHP = secretFingerprint(FAKE.ghp);

describe(".kvgateignore and --baseline through the CLI", () => {
  let repo: TempRepo;
  afterEach(async () => repo.cleanup());

  async function repoWith(ignore: string): Promise<TempRepo> {
    repo = await makeRepo();
    repo.write("README.md", "fleet\n");
    repo.write(".kvgateignore", ignore);
    repo.stage();
    repo.commit("init");
    return repo;
  }

  test("a listed value is exempt with the line's reason, wherever it appears; another value is not", async () => {
    await repoWith(`${FP_AWS} # the runbook's sample key @ops until 2999-12-31\n`);
    repo.write("docs/runbook.env", `AWS_ACCESS_KEY_ID=${FAKE.awsId}\nGITHUB_TOKEN=${FAKE.ghp}\n`);
    repo.write("other/place.txt", `\n\nkey ${FAKE.awsId}\n`);
    repo.stage();
    const r = kvgate(["check", "--staged", "--format", "json"], { cwd: repo.dir });
    expect(r.code).toBe(1);
    const out = json(r.stdout);
    expect(brief(out)).toEqual([
      "secret/aws-access-key-id exempt docs/runbook.env:1",
      "secret/github-token open docs/runbook.env:2",
      "secret/aws-access-key-id exempt other/place.txt:3",
    ]);
    expect(out.findings[0]?.reason).toBe("the runbook's sample key @ops until 2999-12-31");
    expect(out.findings[0]?.severity).toBe("notice");
    for (const v of [FAKE.awsId, FAKE.ghp]) expect(r.stdout).not.toContain(v);
  });

  test("only the listed value: the same commit passes once the other key is gone", async () => {
    await repoWith(`${FP_AWS}\n`);
    repo.write("docs/runbook.env", `AWS_ACCESS_KEY_ID=${FAKE.awsId}\n`);
    repo.stage();
    const r = kvgate(["check", "--staged"], { cwd: repo.dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /docs\/runbook\.env:1 notice \(exempt\) secret\/aws-access-key-id AWS access key id AKIA…BN is accepted by \.kvgateignore line 1\n +↳ listed in \.kvgateignore/,
    );
  });

  test("an expired entry no longer exempts, and the finding says so", async () => {
    await repoWith(`${FP_AWS} # until 2001-01-31 @ops\n`);
    repo.write("a.env", `AWS_ACCESS_KEY_ID=${FAKE.awsId}\n`);
    repo.stage();
    const r = kvgate(["check", "--staged", "--format", "json"], { cwd: repo.dir });
    expect(r.code).toBe(1);
    const f = json(r.stdout).findings[0];
    expect(`${f?.rule} ${f?.status} ${f?.severity}`).toBe("secret/aws-access-key-id open error");
    expect(f?.message).toMatch(
      /its \.kvgateignore entry at line 1 expired after 2001-01-31: review the value and renew the date, or rotate it/,
    );
  });

  test("under --all: an entry that matches nothing is the notice secret/ignore-unused at its line", async () => {
    await repoWith(`${FP_AWS} # in use\n${FP_GHP} # removed last year\n`);
    // The repository holds no service's env file, so --all also warns fleet/no-services (nothing sized).
    repo.write("docs/a.env", `AWS_ACCESS_KEY_ID=${FAKE.awsId}\n`);
    repo.stage();
    repo.commit("a");
    const r = kvgate(["check", "--all", "--format", "json"], { cwd: repo.dir });
    expect(r.code).toBe(0);
    expect(brief(json(r.stdout))).toEqual([
      "secret/ignore-unused open .kvgateignore:2",
      "secret/aws-access-key-id exempt docs/a.env:1",
      "fleet/no-services open null:null",
    ]);
    expect(json(r.stdout).findings[0]?.message).toBe(
      `.kvgateignore lists ${FP_GHP}, which no file in the tree holds any more: remove the line`,
    );
  });

  test("a malformed .kvgateignore, when it changes: secret/ignore-invalid at the line, an error", async () => {
    await repoWith("");
    repo.write(".kvgateignore", `${FP_AWS}\nsha256:nothex # typo\n`);
    repo.stage();
    const r = kvgate(["check", "--staged", "--format", "json"], { cwd: repo.dir });
    expect(r.code).toBe(1);
    const out = json(r.stdout);
    // A change to .kvgateignore is checked as the whole tree (docs/coverage.md#the-policy-change): the
    // entry that matches nothing and the empty fleet are said too.
    expect(brief(out)).toEqual([
      "secret/ignore-unused open .kvgateignore:1",
      "secret/ignore-invalid open .kvgateignore:2",
      "fleet/no-services open null:null",
    ]);
    expect(out.findings[1]?.message).toMatch(
      /"sha256:nothex" is not a fingerprint as kvgate prints it: a line is `sha256:<12 hex> # reason @owner until YYYY-MM-DD`/,
    );
  });

  test("issue 26: an expiry written `Until:` exempts nothing; the ignore line is refused, the value found; the fix applied passes", async () => {
    await repoWith("");
    repo.write(".kvgateignore", `${FP_AWS} # runbook sample @ops Until: 2999-12-31\n`);
    repo.write("docs/runbook.env", `AWS_ACCESS_KEY_ID=${FAKE.awsId}\n`);
    repo.stage();
    const r = kvgate(["check", "--staged", "--format", "json"], { cwd: repo.dir });
    expect(r.code).toBe(1);
    const out = json(r.stdout);
    expect(brief(out)).toEqual([
      "secret/ignore-invalid open .kvgateignore:1",
      "secret/aws-access-key-id open docs/runbook.env:1",
      "fleet/no-services open null:null",
    ]);
    expect(out.findings[1]?.message).toMatch(
      /its \.kvgateignore line 1 is not valid, so it exempts nothing: write it as `sha256:<12 hex> # reason @owner until YYYY-MM-DD`/,
    );
    expect(out.findings[0]?.message).toMatch(
      /"Until: 2999-12-31" reads as an expiry but is not written `until YYYY-MM-DD`, so it would never expire/,
    );
    // The fix as the message gives it.
    repo.write(".kvgateignore", `${FP_AWS} # runbook sample @ops until 2999-12-31\n`);
    repo.stage();
    const fixed = kvgate(["check", "--staged", "--format", "json"], { cwd: repo.dir });
    expect(brief(json(fixed.stdout))).toEqual(["secret/aws-access-key-id exempt docs/runbook.env:1", "fleet/no-services open null:null"]);
    expect(fixed.code).toBe(0);
  });

  test("--baseline FILE: findings an earlier JSON report lists are exempt (reason baseline), even after the lines move", async () => {
    repo = await makeRepo();
    repo.write("README.md", "fleet\n");
    repo.stage();
    repo.commit("init");
    repo.write("a.env", `AWS_ACCESS_KEY_ID=${FAKE.awsId}\n`);
    repo.stage();
    const first = kvgate(["check", "--staged", "--format", "json", "--output", ".git/base.json"], { cwd: repo.dir });
    expect(first.code).toBe(1);
    repo.write("a.env", `# moved down\n\nAWS_ACCESS_KEY_ID=${FAKE.awsId}\nGITHUB_TOKEN=${FAKE.ghp}\n`);
    repo.stage();
    const r = kvgate(["check", "--staged", "--format", "json", "--baseline", ".git/base.json"], { cwd: repo.dir });
    const out = json(r.stdout);
    expect(brief(out)).toEqual(["secret/aws-access-key-id exempt a.env:3", "secret/github-token open a.env:4"]);
    expect(out.findings[0]?.reason).toBe("baseline");
    expect(r.code).toBe(1);
    repo.write("a.env", `AWS_ACCESS_KEY_ID=${FAKE.awsId}\n`);
    repo.stage();
    expect(kvgate(["check", "--staged", "--baseline", ".git/base.json"], { cwd: repo.dir }).code).toBe(0);
  });

  test("audit reads the current .kvgateignore like the current policy: an accepted value is exempt-only, not a bypass", async () => {
    repo = await makeRepo();
    repo.write("README.md", "fleet\n");
    repo.stage();
    const base = repo.commit("init");
    repo.write("docs/runbook.env", `AWS_ACCESS_KEY_ID=${FAKE.awsId}\n`);
    repo.stage();
    repo.commit("runbook");
    const classes = (): string[] =>
      (
        JSON.parse(kvgate(["audit", "--range", `${base}..HEAD`, "--format", "json"], { cwd: repo.dir }).stdout) as {
          commits: { classification: string }[];
        }
      ).commits.map((c) => c.classification);
    expect(classes()).toEqual(["bypass"]);
    repo.write(".kvgateignore", `${FP_AWS} # the runbook's sample @ops\n`);
    expect(classes()).toEqual(["exempt-only"]);
  });

  test.each([
    ["a missing file", null, /--baseline \.git\/nope\.json: cannot read it \(ENOENT\)[\s\S]*kvgate check --format json --output FILE/],
    ["not JSON", "findings: []", /--baseline \.git\/nope\.json: not JSON/],
    ["JSON that is not a kvgate report", '{"results": []}', /not a kvgate JSON report/],
    ["a finding without a fingerprint", '{"tool":"kvgate","findings":[{"rule":"secret/x"}]}', /findings\[0\] has no rule and fingerprint/],
  ])("--baseline with %s: exit 2 with the fix", async (_c, content, re) => {
    repo = await makeRepo();
    repo.write("README.md", "fleet\n");
    repo.stage();
    if (content !== null) repo.write(".git/nope.json", content);
    const r = kvgate(["check", "--staged", "--baseline", ".git/nope.json"], { cwd: repo.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(re);
  });
});
