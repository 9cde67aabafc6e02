// Issue 15's idioms end to end: a real `git commit` in a repository where `kvgate init` installed
// its hooks. Each case stages one file and commits: a secret refuses the commit (no new commit, the
// rule named), a pure reference or a placeholder lets it through. Every refused case is also checked
// in every output format: none holds the raw value.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { TempRepo } from "../helpers/repo.js";
import { kvgate } from "../helpers/cli.js";
import { FORMATS } from "../../src/report/reporters.js";
import { commitCount, discardChanges, gitCommit, hookedRepo } from "../helpers/install.js";
import { FAKE } from "../secrets/helpers.js";
import { SAMPLE } from "../secrets/families.js";

const AWS = FAKE.awsId;
const GEN = SAMPLE["generic-secret"] ?? "";
const TG = SAMPLE["telegram-bot-token"] ?? "";
const gcp = [
  "{",
  '  "type": "service_account",',
  '  "project_id": "fleet",',
  `  "private_key": "-----BEGIN PRIVATE KEY-----\\n${FAKE.privateKeyBody}\\n-----END PRIVATE KEY-----\\n",`,
  '  "client_email": "svc@fleet.iam.gserviceaccount.com"',
  "}",
].join("\n");

let repo: TempRepo;
beforeAll(async () => {
  repo = await hookedRepo();
});
afterAll(async () => repo.cleanup());

/** Stages `text` as `path` and commits it with the installed hooks. */
function commit(path: string, text: string): { code: number | null; out: string; landed: boolean } {
  const before = commitCount(repo);
  repo.write(path, text);
  repo.stage();
  const res = gitCommit(repo, `add ${path}`);
  return { ...res, landed: commitCount(repo) === before + 1 };
}

describe("refused by a real git commit, and no format shows the value", () => {
  test.each([
    [
      "a shell default ${KEY:-AKIA…}",
      "scripts/a.env",
      `AWS_ACCESS_KEY_ID=\${AWS_ACCESS_KEY_ID:-${AWS}}\n`,
      "secret/aws-access-key-id",
      AWS,
    ],
    [
      "a compose default ${X-…}",
      "compose.yaml",
      `services:\n  seat:\n    environment:\n      - AWS_ACCESS_KEY_ID=\${AWS_ACCESS_KEY_ID-${AWS}}\n`,
      "secret/aws-access-key-id",
      AWS,
    ],
    [
      "an Ansible default('AKIA…')",
      "playbooks/p.yml",
      `- hosts: all\n  vars:\n    aws_key: "{{ lookup('env', 'AWS_KEY') | default('${AWS}') }}"\n`,
      "secret/aws-access-key-id",
      AWS,
    ],
    ["a literal inside {{ }}", "playbooks/q.yml", `- hosts: all\n  vars:\n    key: "{{ '${AWS}' }}"\n`, "secret/aws-access-key-id", AWS],
    [
      "a db_password default",
      "playbooks/db.yml",
      `- hosts: all\n  vars:\n    db_password: '{{ vault_db_password | default("${GEN}") }}'\n`,
      "secret/generic-secret",
      GEN,
    ],
    ["a URL-encoded key (%3D)", "docs/cb.txt", `https://x.test/cb?cred%3D${AWS}%26next\n`, "secret/aws-access-key-id", AWS],
    ["a JSON-escaped key (\\u003d)", "docs/c.json", `{"env": "KEY\\u003d${AWS}"}\n`, "secret/aws-access-key-id", AWS],
    ["a key glued to its name (keyAKIA…)", "docs/k.txt", `awskey${AWS}\n`, "secret/aws-access-key-id", AWS],
    ["a Telegram bot token", "scripts/bot.env", `TELEGRAM_BOT_TOKEN=${TG}\n`, "secret/telegram-bot-token", TG],
    [
      "a real key on the same line as a placeholder",
      "scripts/mix.env",
      `KEYS="AKIAIOSFODNN7EXAMPLE ${AWS}"\n`,
      "secret/aws-access-key-id",
      AWS,
    ],
    ["a GCP service-account JSON", "keys/sa.json", `${gcp}\n`, "secret/gcp-service-account", FAKE.privateKeyBody.slice(0, 64)],
  ])("%s", (_case, path, text, rule, raw) => {
    const r = commit(path, text);
    expect(r.landed, r.out).toBe(false);
    expect(r.code).not.toBe(0);
    expect(r.out).toContain(rule);
    expect(r.out).toContain("REFUSED");
    expect(r.out).not.toContain(raw);
    for (const format of FORMATS) {
      const c = kvgate(["check", "--staged", "--format", format], { cwd: repo.dir });
      expect(c.code, `${format}: ${c.stderr}`).toBe(1);
      expect(c.stdout + c.stderr, format).not.toContain(raw);
    }
    discardChanges(repo);
  });
});

describe("let through by a real git commit", () => {
  test.each([
    ["a pure ${NAME} reference", "scripts/ref.env", "AWS_ACCESS_KEY_ID=${AWS_ACCESS_KEY_ID}\nDB_PASSWORD=${DB_PASSWORD}\n"],
    [
      "a vault lookup with nothing literal",
      "playbooks/v.yml",
      "- hosts: all\n  vars:\n    password: \"{{ lookup('hashi_vault', 'secret=kv/data/app:password') }}\"\n",
    ],
    ["a GitHub Actions secret", ".github/workflows/deploy.yml", "jobs:\n  d:\n    env:\n      AWS_KEY: ${{ secrets.AWS_ACCESS_KEY_ID }}\n"],
  ])("%s: passes with nothing to say", (_case, path, text) => {
    const r = commit(path, text);
    expect(r.landed, r.out).toBe(true);
    expect(r.out).not.toMatch(/secret\//);
  });

  test("placeholders pass and are reported as exempt, not dropped", () => {
    const text = `AWS_ACCESS_KEY_ID=AKIAXXXXXXXXXXXXXXXX\nGITHUB_TOKEN=ghp_${"x".repeat(36)}\nAWS=AKIAIOSFODNN7EXAMPLE\n`;
    repo.write("scripts/example.env", text);
    repo.stage();
    const c = kvgate(["check", "--staged", "--format", "json"], { cwd: repo.dir });
    const out = JSON.parse(c.stdout) as { verdict: string; findings: { rule: string; status: string; line: number }[] };
    expect(out.findings.map((f) => `${f.rule} ${f.status} ${f.line}`)).toEqual([
      "secret/aws-access-key-id exempt 1",
      "secret/github-token exempt 2",
      "secret/aws-access-key-id exempt 3",
    ]);
    const r = gitCommit(repo, "add examples");
    expect(r.code, r.out).toBe(0);
  });
});

describe("user placeholder patterns from kvgate.yaml", () => {
  test("a crafted (A+)+x pattern: the commit is refused for the key, and the check's own CPU stays under 2 s on a 1 MiB line", () => {
    repo.write("kvgate.yaml", 'secrets:\n  placeholders:\n    patterns: ["(A+)+x"]\n');
    repo.stage();
    expect(gitCommit(repo, "policy", {}, ["--no-verify"]).code).toBe(0);
    const line = `KEY=${AWS}${"A".repeat(1024 * 1024)}\nK2=${AWS} ${"A".repeat(44)}\n`;
    repo.write("data/crafted.txt", line);
    repo.stage();
    // CPU time of the kvgate process itself, read at its exit: the wall clock of a shared CI box is not the engine's.
    const probe = join(repo.dir, ".git", "cpu.cjs");
    writeFileSync(
      probe,
      'process.on("exit",()=>{const u=process.resourceUsage();process.stderr.write("cpu-ms "+Math.round((u.userCPUTime+u.systemCPUTime)/1000)+"\\n")})',
    );
    const c = kvgate(["check", "--staged"], { cwd: repo.dir, env: { NODE_OPTIONS: `--require ${probe}` } });
    expect(c.code).toBe(1);
    expect(c.stdout).toMatch(/data\/crafted\.txt:2 error secret\/aws-access-key-id/);
    const cpu = Number(/cpu-ms (\d+)/.exec(c.stderr)?.[1]);
    expect(cpu).toBeGreaterThan(0);
    expect(cpu).toBeLessThan(2000);
    const r = gitCommit(repo, "crafted");
    expect(r.code).not.toBe(0);
    discardChanges(repo);
  });

  test("a backreference pattern: the commit stops with exit 2 and the fix", () => {
    repo.write("kvgate.yaml", 'secrets:\n  placeholders:\n    patterns: ["(A)\\\\1+"]\n');
    repo.stage();
    const c = kvgate(["check", "--staged"], { cwd: repo.dir });
    expect(c.code).toBe(2);
    expect(c.stderr).toContain('pattern "(A)\\\\1+" is not a linear-time (RE2) regular expression');
    expect(c.stderr).toContain("drop backreferences and lookaround, or list the exact value under secrets.placeholders.values");
    const r = gitCommit(repo, "bad policy");
    expect(r.code).not.toBe(0);
    expect(r.out).toContain("not a linear-time (RE2) regular expression");
    discardChanges(repo);
  });
});
