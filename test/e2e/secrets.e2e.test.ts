// Issue 5's done-means through real git hooks: placeholders exempt, a real key refused, the
// ALLOW_SECRETS=1 override recorded in trailers, --no-verify recorded as not-run, and audit.
import { afterEach, describe, expect, test } from "vitest";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeRepo, GIT_ENV, type TempRepo } from "../helpers/repo.js";
import { BIN, kvgate } from "../helpers/cli.js";
import { FORMATS } from "../../src/report/reporters.js";
import { execFileSync, spawnSync } from "node:child_process";

const PLACEHOLDER = "AKIA0000000000000EXAMPLE";
const REAL = "AKIAQYLPMN5HHHFPZAM2";
const made: TempRepo[] = [];
afterEach(async () => {
  for (const r of made.splice(0)) await r.cleanup();
});

function installHooks(r: TempRepo): void {
  const hooks = join(r.dir, ".git", "hooks");
  const node = process.execPath;
  writeFileSync(join(hooks, "pre-commit"), `#!/bin/sh\nexec "${node}" "${BIN}" check --staged\n`);
  writeFileSync(join(hooks, "prepare-commit-msg"), `#!/bin/sh\nexec "${node}" "${BIN}" hook prepare-commit-msg "$@"\n`);
  chmodSync(join(hooks, "pre-commit"), 0o755);
  chmodSync(join(hooks, "prepare-commit-msg"), 0o755);
}

/** `git commit` through the hooks, as a user runs it. */
function commit(r: TempRepo, message: string, opts: { env?: Record<string, string>; noVerify?: boolean } = {}) {
  const args = ["commit", "-q", ...(opts.noVerify ? ["--no-verify"] : []), "-m", message];
  const res = spawnSync("git", args, { cwd: r.dir, env: { ...GIT_ENV, NO_COLOR: "1", ...opts.env }, encoding: "utf8" });
  return { code: res.status, out: res.stdout + res.stderr };
}

const lastMessage = (r: TempRepo) => r.git("log", "-1", "--format=%B");

describe("the override's configured name", () => {
  test("with secrets.override: LET_IT_PASS the text says LET_IT_PASS=1 let the finding through", async () => {
    const r = await makeRepo();
    made.push(r);
    r.write("kvgate.yaml", "secrets: { override: LET_IT_PASS }\n");
    r.write("docs/aws.md", `a key: ${REAL}\n`);
    r.stage();
    const run = kvgate(["check", "--staged"], { cwd: r.dir, env: { LET_IT_PASS: "1", NO_COLOR: "1" } });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/docs\/aws\.md:1 error \(allowed\) secret\/aws-access-key-id/);
    expect(run.stdout).toContain("LET_IT_PASS=1 let 1 secret finding through");
    expect(run.stdout).not.toContain("ALLOW_SECRETS");
    expect(run.stdout).not.toContain(REAL);
  });
});

describe("secrets through the hooks", () => {
  test("placeholders pass as exempt; a real key is refused; ALLOW_SECRETS=1 records it; --no-verify is not-run; audit classifies each", async () => {
    const r = await makeRepo();
    made.push(r);
    installHooks(r);
    r.write("README.md", "fleet\n");
    r.stage();
    expect(commit(r, "init").code).toBe(0);
    const base = r.git("rev-parse", "HEAD").trim();

    // 1. Two copies of the all-zero example id: exempt, the commit passes.
    r.write("docs/aws.md", `Use ${PLACEHOLDER} in examples, never a real id; again: ${PLACEHOLDER}\n`);
    r.stage();
    const check = kvgate(["check", "--staged", "--format", "json"], { cwd: r.dir });
    expect(check.code).toBe(0);
    const exempt = JSON.parse(check.stdout).findings.filter((f: { status: string }) => f.status === "exempt");
    expect(exempt).toHaveLength(2);
    expect(exempt.map((f: { severity: string; rule: string }) => [f.rule, f.severity])).toEqual([
      ["secret/aws-access-key-id", "notice"],
      ["secret/aws-access-key-id", "notice"],
    ]);
    const c1 = commit(r, "docs: the placeholder shape");
    expect(c1.code).toBe(0);
    expect(lastMessage(r)).toMatch(/^Kvgate-Verdict: pass tree=[0-9a-f]{40}$/m);
    const sha1 = r.git("rev-parse", "HEAD").trim();

    // 2. A real-shaped key on the same line: refused, and its value is never printed.
    r.write("docs/aws.md", `Use ${PLACEHOLDER} in examples, never a real id; again: ${PLACEHOLDER} ${REAL}\n`);
    r.stage();
    const refused = commit(r, "docs: oops");
    expect(refused.code).not.toBe(0);
    expect(refused.out).toMatch(/docs\/aws\.md:1 error secret\/aws-access-key-id/);
    expect(refused.out).not.toContain(REAL);
    expect(r.git("rev-parse", "HEAD").trim()).toBe(sha1);

    // 3. The same with ALLOW_SECRETS=1: through, and the commit carries the trailers.
    const allowed = commit(r, "docs: deliberate", { env: { ALLOW_SECRETS: "1" } });
    expect(allowed.code).toBe(0);
    expect(allowed.out).toMatch(/ALLOW_SECRETS=1 let 1 secret finding through/);
    expect(allowed.out).not.toContain(REAL);
    const msg = lastMessage(r);
    expect(msg).toMatch(/^Kvgate-Verdict: allowed tree=[0-9a-f]{40}$/m);
    expect(msg).toMatch(/^Kvgate-Allowed-Secret: secret\/aws-access-key-id sha256:[0-9a-f]{12} docs\/aws\.md:1$/m);
    expect(msg).not.toContain(REAL);
    const sha3 = r.git("rev-parse", "HEAD").trim();

    // 4. --no-verify with a secret: prepare-commit-msg still runs and says not-run.
    r.write("scripts/deploy.env", `AWS_ACCESS_KEY_ID=AKIAQYLPMN5HHHFPZBN3\n`);
    r.stage();
    expect(commit(r, "deploy creds", { noVerify: true }).code).toBe(0);
    expect(lastMessage(r)).toMatch(/^Kvgate-Verdict: not-run tree=[0-9a-f]{40}$/m);
    const sha4 = r.git("rev-parse", "HEAD").trim();

    // 5. The audit: each commit classified, exit 1 for the landed secrets.
    const audit = kvgate(["audit", "--range", `${base}..HEAD`, "--format", "json"], { cwd: r.dir });
    expect(audit.code).toBe(1);
    const doc = JSON.parse(audit.stdout);
    expect(doc.verdict).toBe("fail");
    expect(
      doc.commits.map((c: { sha: string; classification: string; override: boolean }) => [c.sha, c.classification, c.override]),
    ).toEqual([
      [sha1, "exempt-only", false],
      [sha3, "secret-landed", true],
      [sha4, "bypass", false],
    ]);
    expect(audit.stdout).not.toContain(REAL);
    const text = kvgate(["audit", "--range", `${base}..HEAD`], { cwd: r.dir });
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/exempt-only/);
    expect(text.stdout).toMatch(/audit\/secret-landed/);
    expect(text.stdout).toMatch(/audit\/bypass/);
    expect(text.stdout.trim().split("\n").at(-1)).toMatch(
      /3 commits: 0 clean, 1 exempt-only, 1 secret-landed, 1 bypass, 0 verdict-mismatch — FAIL$/,
    );
  });

  test("the seed landing: ALLOW_SECRETS=1 named in the message, only placeholders → exempt-only with audit/override-unneeded", async () => {
    const r = await makeRepo();
    made.push(r);
    r.write("README.md", "x\n");
    r.stage();
    const base = r.commit("init");
    r.write("agent/skills/aws.md", `placeholder ${PLACEHOLDER} and ${PLACEHOLDER}\n`);
    r.stage();
    r.commit(
      "Landing blocker: dirt committed.\n\n`ALLOW_SECRETS=1` was used, deliberately: the only credential-shaped strings are two copies of AKIA0000000000000EXAMPLE.",
    );
    const audit = kvgate(["audit", "--range", `${base}..HEAD`, "--format", "json"], { cwd: r.dir });
    expect(audit.code).toBe(0);
    const [row] = JSON.parse(audit.stdout).commits;
    expect(row.classification).toBe("exempt-only");
    expect(row.override).toBe(true);
    expect(row.findings.map((f: { rule: string }) => f.rule)).toContain("audit/override-unneeded");
  });

  test("amending does not duplicate the trailers", async () => {
    const r = await makeRepo();
    made.push(r);
    installHooks(r);
    r.write("a.txt", "a\n");
    r.stage();
    expect(commit(r, "first").code).toBe(0);
    for (let i = 0; i < 2; i++) {
      const res = spawnSync("git", ["commit", "-q", "--amend", "--no-edit"], { cwd: r.dir, env: GIT_ENV, encoding: "utf8" });
      expect(res.status).toBe(0);
    }
    expect(lastMessage(r).match(/Kvgate-Verdict:/g)).toHaveLength(1);
  });
});

describe("no output format holds a real secret", () => {
  // Every reporter of the table (src/report/index.ts): a new format is held to this from its first line.
  test.each(FORMATS)("--format %s", async (format) => {
    const r = await makeRepo();
    made.push(r);
    const planted = [REAL, "ghp_" + "x9".repeat(18), "sk-ant-api03-" + "Qz7".repeat(20), "hf_" + "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"];
    r.write("scripts/leak.env", planted.map((s, i) => `TOKEN_${i}=${s}`).join("\n") + "\n");
    r.write("notes.md", `here: ${planted.join(" ")}\n`);
    // Where other checks quote a value: the model name, a flag value, a host, a playbook's line.
    r.write(
      "scripts/quoted.env",
      `ENGINE=vllm\nMODEL=${planted[1]}\nSERVE_ARGS="--max-model-len ${planted[2]}"\nGPU_MEMORY_UTILIZATION=${planted[3]}\n`,
    );
    r.write(
      "playbooks/p.yaml",
      `- hosts: all\n  tasks:\n    - lineinfile: { path: /x/scripts/quoted.env, regexp: "^MODEL=", line: "MODEL=${planted[0]}" }\n`,
    );
    r.stage();
    const run = kvgate(["check", "--staged", "--format", format], { cwd: r.dir });
    expect(run.code).toBe(1);
    for (const s of planted) {
      expect(run.stdout).not.toContain(s);
      expect(run.stderr).not.toContain(s);
      // Not even a long slice of it.
      expect(run.stdout).not.toContain(s.slice(0, 12));
    }
    expect(run.stdout).toMatch(/sha256:[0-9a-f]{12}|secret\//);
    void execFileSync;
  });

  test("explain and audit (a token in a commit subject) never print one either", async () => {
    const r = await makeRepo();
    made.push(r);
    const token = "ghp_" + "Zx8".repeat(12);
    r.write("README.md", "x\n");
    r.stage();
    const base = r.commit("init");
    r.write("scripts/quoted.env", `ENGINE=vllm\nMODEL=${token}\n`);
    r.stage();
    r.commit(`rotate ${token} ALLOW_SECRETS=1`, { noVerify: true });
    for (const format of ["text", "json"]) {
      const explain = kvgate(["explain", "--format", format], { cwd: r.dir });
      expect(explain.code).toBe(0);
      expect(explain.stdout).toContain("ghp_");
      expect(explain.stdout).not.toContain(token.slice(0, 12));
      const audit = kvgate(["audit", "--range", `${base}..HEAD`, "--format", format], { cwd: r.dir });
      expect(audit.code).toBe(1);
      expect(audit.stdout + audit.stderr).not.toContain(token.slice(0, 12));
    }
  });

  test("--fail-on never does not record pass over an open secret", async () => {
    const r = await makeRepo();
    made.push(r);
    installHooks(r);
    r.write("README.md", "x\n");
    r.stage();
    expect(commit(r, "init").code).toBe(0);
    r.write("k.env", `KEY=${REAL}\n`);
    r.stage();
    expect(kvgate(["check", "--staged", "--fail-on", "never"], { cwd: r.dir }).code).toBe(0);
    const msgFile = join(r.dir, ".git", "MSG_TEST");
    writeFileSync(msgFile, "subject\n");
    expect(kvgate(["hook", "prepare-commit-msg", msgFile], { cwd: r.dir }).code).toBe(0);
    expect(readFileSync(msgFile, "utf8")).toMatch(/^Kvgate-Verdict: not-run tree=/m);
  });
});
