// Issue 29's fleet-specific misses end to end: a real `git commit` in a repository where `kvgate
// init` installed its hooks, and `check --staged` in every output format. Each refused case names its
// rule and line in text, JSON and SARIF, and no output holds the value.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { TempRepo } from "../helpers/repo.js";
import { kvgate } from "../helpers/cli.js";
import { commitCount, discardChanges, gitCommit, hookedRepo } from "../helpers/install.js";
import { FAKE, pullSecret } from "../secrets/helpers.js";
import { ALPHA, rand } from "../secrets/families.js";

const KEY = rand(ALPHA.alnum, 24);
const GHP = FAKE.ghp;
const b64 = (s: string): string => Buffer.from(s).toString("base64");
const pulled = pullSecret({ auths: { "ghcr.io": { username: "fleet", auth: b64(`fleet:${GHP}`) } } });

let repo: TempRepo;
beforeAll(async () => {
  repo = await hookedRepo();
});
afterAll(async () => repo.cleanup());

interface Sarif {
  runs: {
    results: { ruleId: string; locations: { physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } } }[] }[];
  }[];
}

describe("the fleet's secrets are refused by a real commit, in every format, never shown", () => {
  test.each([
    [
      "vLLM --api-key in a compose command array",
      "compose.yaml",
      `services:\n  seat:\n    image: vllm/vllm-openai:v0.11.0\n    command: ["--model", "Qwen/Qwen3-8B", "--api-key", "${KEY}"]\n`,
      "secret/generic-secret",
      4,
      KEY,
    ],
    [
      "vLLM --api-key in a compose command list",
      "compose.yaml",
      `services:\n  seat:\n    command:\n      - --model\n      - Qwen/Qwen3-8B\n      - --api-key\n      - ${KEY}\n`,
      "secret/generic-secret",
      7,
      KEY,
    ],
    [
      "vLLM --api-key in a VLLM_ARGS string",
      "scripts/seat.env",
      `VLLM_ARGS="--model Qwen/Qwen3-8B --api-key ${KEY} --port 8000"\n`,
      "secret/generic-secret",
      1,
      KEY,
    ],
    ["a pull secret's base64 .dockerconfigjson holding a ghp_ token", "k8s/pull-secret.yaml", pulled, "secret/github-token", 7, GHP],
    [
      ".netrc password",
      "deploy/.netrc",
      `machine registry.fleet.internal\n  login deploy\n  password ${KEY}\n`,
      "secret/generic-secret",
      3,
      KEY,
    ],
    [
      "a JSON value with \\/ escapes",
      "deploy/creds.json",
      `{"aws_access_key_id": "x", "aws_secret_access_key": "${FAKE.awsSecret.replace(/\//g, "\\/")}"}\n`,
      "secret/aws-secret-access-key",
      1,
      FAKE.awsSecret,
    ],
    [
      "an Ansible !vault tag over plaintext",
      "playbooks/group_vars/all.yml",
      `db_user: fleet\ndb_password: !vault |\n  ${KEY}\n`,
      "secret/ansible-vault-plaintext",
      3,
      KEY,
    ],
  ])("%s", (_case, path, text, rule, line, raw) => {
    const before = commitCount(repo);
    repo.write(path, text);
    repo.stage();
    const r = gitCommit(repo, `add ${path}`);
    expect(commitCount(repo), r.out).toBe(before);
    expect(r.code).not.toBe(0);
    expect(r.out).toContain(rule);
    expect(r.out).not.toContain(raw);

    const t = kvgate(["check", "--staged", "--format", "text"], { cwd: repo.dir });
    expect(t.code).toBe(1);
    expect(t.stdout).toContain(`${path}:${line} error ${rule}`);

    const j = kvgate(["check", "--staged", "--format", "json"], { cwd: repo.dir });
    expect(j.code).toBe(1);
    const found = (JSON.parse(j.stdout) as { findings: { rule: string; file: string; line: number; status: string }[] }).findings;
    expect(found.map((f) => `${f.rule} ${f.status} ${f.file}:${f.line}`)).toContain(`${rule} open ${path}:${line}`);

    const s = kvgate(["check", "--staged", "--format", "sarif"], { cwd: repo.dir });
    expect(s.code).toBe(1);
    const results = (JSON.parse(s.stdout) as Sarif).runs[0]?.results ?? [];
    expect(
      results.map(
        (x) => `${x.ruleId} ${x.locations[0]?.physicalLocation.artifactLocation.uri}:${x.locations[0]?.physicalLocation.region.startLine}`,
      ),
    ).toContain(`${rule} ${path}:${line}`);

    const g = kvgate(["check", "--staged", "--format", "github"], { cwd: repo.dir });
    for (const out of [t, j, s, g]) expect(out.stdout + out.stderr).not.toContain(raw);
    discardChanges(repo);
  });

  test("the same shapes holding references or ciphertext commit cleanly", () => {
    const before = commitCount(repo);
    repo.write("compose.yaml", 'services:\n  seat:\n    command: ["--model", "Qwen/Qwen3-8B", "--api-key", "${VLLM_API_KEY}"]\n');
    repo.write("scripts/seat.env", 'VLLM_ARGS="--model Qwen/Qwen3-8B --api-key-file /run/secrets/vllm"\n');
    repo.write(
      "playbooks/group_vars/all.yml",
      "db_password: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n  3661386533393836323263613435363133316539653930646132653734363132\n",
    );
    repo.stage();
    const r = gitCommit(repo, "references only");
    expect(r.code, r.out).toBe(0);
    expect(commitCount(repo)).toBe(before + 1);
    expect(r.out).not.toMatch(/secret\//);
  });
});
