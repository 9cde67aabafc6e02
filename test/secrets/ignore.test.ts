// Issue 15 item 7 / contract section 15: `.kvgateignore` (value fingerprints, an owner, an expiry)
// and `check --baseline FILE`, through the built CLI in real repositories, and the file's parser.
import { afterEach, describe, expect, test } from "vitest";
import { makeRepo, type TempRepo } from "../helpers/repo.js";
import { kvgate } from "../helpers/cli.js";
import { FAKE } from "./helpers.js";
import { secretFingerprint } from "../../src/secrets/redact.js";
import { isExpired, parseIgnore } from "../../src/secrets/ignore.js";

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

describe("parseIgnore: one fingerprint a line, reason, @owner, until", () => {
  test.each([
    ["fingerprint alone", "sha256:0123456789ab", { fingerprint: "sha256:0123456789ab", reason: "", owner: null, until: null, line: 1 }],
    [
      "with reason, owner and date",
      "sha256:0123456789ab  # AWS docs example in runbook @ops-team until 2027-03-31",
      { reason: "AWS docs example in runbook @ops-team until 2027-03-31", owner: "ops-team", until: "2027-03-31" },
    ],
    ["CRLF and indentation", "  sha256:0123456789ab # ok\r", { reason: "ok", owner: null }],
  ])("%s", (_c, text, want) => {
    const l = parseIgnore(text, "2026-12-02");
    expect(l.problems).toEqual([]);
    expect(l.entries[0]).toMatchObject(want);
  });

  test.each([
    ["an uppercase or short hash", "sha256:0123456789AB", 1, /not a fingerprint as kvgate prints it/],
    ["a raw value instead of its fingerprint", `\n${"AKIA"}XXXXXXXXXXXXXXXX # oops`, 2, /not a fingerprint/],
    ["a day that does not exist", "sha256:0123456789ab # until 2027-02-30", 1, /"until 2027-02-30" is not a date/],
    [
      "a date in another shape",
      "sha256:0123456789ab # until 31/03/2027",
      1,
      /"until 31\/03\/2027" reads as an expiry but is not written `until YYYY-MM-DD`/,
    ],
    // Issue 26: any other spelling of an expiry would be a permanent exemption; it is refused instead.
    ["Until: (capital, colon)", "sha256:0123456789ab # runbook @ops Until: 2027-03-31", 1, /"Until: 2027-03-31" reads as an expiry/],
    ["until= (equals)", "sha256:0123456789ab # runbook until=2027-03-31", 1, /"until=2027-03-31" reads as an expiry/],
    ["UNTIL (upper case)", "sha256:0123456789ab # UNTIL 2027-03-31", 1, /"UNTIL 2027-03-31" reads as an expiry/],
    ["until with two spaces", "sha256:0123456789ab # until  2027-03-31", 1, /reads as an expiry/],
    ["expires …", "sha256:0123456789ab # expires 2027-03-31", 1, /"expires 2027-03-31" reads as an expiry/],
    ["expiry: …", "sha256:0123456789ab # expiry: 2027-03-31", 1, /"expiry: 2027-03-31" reads as an expiry/],
    ["a bare date", "sha256:0123456789ab # review 2027-03-31", 1, /"2027-03-31" reads as an expiry/],
    ["a bare day-first date", "sha256:0123456789ab # review 31.03.2027", 1, /"31.03.2027" reads as an expiry/],
    ["two expiries", "sha256:0123456789ab # until 2027-03-31 until 2028-01-01", 1, /gives 2 expiries/],
    ["until glued to the reason", "sha256:0123456789ab # example.until 2027-03-31", 1, /reads as an expiry/],
    ["text after the fingerprint without #", "sha256:0123456789ab until 2027-03-31", 1, /is not a fingerprint as kvgate prints it/],
  ])("%s is a problem at its line", (_c, text, line, re) => {
    const l = parseIgnore(text, "2026-12-02");
    expect(l.entries).toEqual([]);
    expect(l.problems).toHaveLength(1);
    expect(l.problems[0]?.line).toBe(line);
    expect(l.problems[0]?.problem).toMatch(re);
    // Every problem names the accepted form.
    expect(l.problems[0]?.problem).toContain("`sha256:<12 hex> # reason @owner until YYYY-MM-DD`");
  });

  test.each([
    ["a version number in the reason", "sha256:0123456789ab # vendored in v10.0.12 @ops"],
    ["a ticket number", "sha256:0123456789ab # see OPS-2027 @ops until 2027-03-31"],
    ["an owner with a team", "sha256:0123456789ab # @org/platform until 2027-03-31"],
  ])("the accepted form with %s is an entry", (_c, text) => {
    const l = parseIgnore(text, "2026-12-02");
    expect(l.problems).toEqual([]);
    expect(l.entries).toHaveLength(1);
  });

  test("the message's fix, applied, makes the line an entry that expires", () => {
    const bad = "sha256:0123456789ab # runbook @ops Until: 2027-03-31";
    expect(parseIgnore(bad, "2026-12-02").entries).toEqual([]);
    const fixed = bad.replace("Until: ", "until ");
    const l = parseIgnore(fixed, "2026-12-02");
    expect(l.problems).toEqual([]);
    expect(l.entries[0]).toMatchObject({ owner: "ops", until: "2027-03-31" });
    expect(isExpired(l.entries[0]!, "2027-04-01")).toBe(true);
  });

  test("comments and blank lines are skipped; expiry is inclusive of the until day", () => {
    const l = parseIgnore("# accepted values\n\nsha256:0123456789ab # until 2026-12-02\n", "2026-12-02");
    expect(l.entries.map((e) => e.line)).toEqual([3]);
    const e = l.entries[0];
    if (!e) throw new Error("no entry");
    expect(isExpired(e, "2026-12-02")).toBe(false);
    expect(isExpired(e, "2026-12-03")).toBe(true);
  });
});

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
