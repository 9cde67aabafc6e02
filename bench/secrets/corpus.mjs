// Builds the benchmark corpus: a git repository with a generated history (env files, playbooks, docs)
// into which real-shaped fake keys and the known placeholders are planted. Writes planted.json beside
// it: what each planted line is, and whether a scanner should report it.
// Usage: node corpus.mjs <dir> [commits]
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";

const dir = process.argv[2];
const commits = Number(process.argv[3] ?? 1500);
if (!dir) throw new Error("usage: node corpus.mjs <dir> [commits]");
mkdirSync(dir, { recursive: true });

// Deterministic pseudo-random values, so every run plants the same set.
let seed = 0x5eed;
const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
const pick = (alphabet, n) => Array.from({ length: n }, () => alphabet[Math.floor(rnd() * alphabet.length)]).join("");
const UP = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const B64 = `${ALNUM}+/`;
const URL64 = `${ALNUM}-_`;
const b64url = (s) => Buffer.from(s).toString("base64url");
void randomBytes;

const kinds = {
  "aws-access-key-id": () => `AWS_ACCESS_KEY_ID=AKIA${pick(UP, 16)}`,
  "aws-secret-access-key": () => `AWS_SECRET_ACCESS_KEY=${pick(B64, 40)}`,
  "github-token": () => `GITHUB_TOKEN=ghp_${pick(ALNUM, 36)}`,
  "github-pat": () => `GH_PAT=github_pat_${pick(ALNUM, 22)}_${pick(ALNUM, 59)}`,
  "gitlab-token": () => `GITLAB_TOKEN=glpat-${pick(ALNUM, 20)}`,
  "slack-token": () => `SLACK_BOT_TOKEN=xoxb-${pick("0123456789", 12)}-${pick("0123456789", 13)}-${pick(ALNUM, 24)}`,
  "openai-api-key": () => `OPENAI_API_KEY=sk-proj-${pick(URL64, 48)}`,
  "anthropic-api-key": () => `ANTHROPIC_API_KEY=sk-ant-api03-${pick(URL64, 93)}AA`,
  "huggingface-token": () => `HF_TOKEN=hf_${pick("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", 34)}`,
  "google-api-key": () => `GOOGLE_API_KEY=AIza${pick(URL64, 35)}`,
  "stripe-secret-key": () => `STRIPE_SECRET_KEY=sk_live_${pick(ALNUM, 24)}`,
  jwt: () => `AUTH_JWT=${b64url('{"alg":"HS256","typ":"JWT"}')}.${b64url(`{"sub":"${pick(ALNUM, 12)}","iat":1760000000}`)}.${pick(URL64, 43)}`,
  "generic-secret": () => `DB_PASSWORD=${pick(ALNUM, 14)}!${pick(ALNUM, 6)}`,
};

const files = new Map();
const planted = [];
const services = Array.from({ length: 12 }, (_, i) => `svc${i}`);
for (const s of services) files.set(`scripts/${s}.env`, ["ENGINE=vllm", "HOST=fv-ml1", `GPU=${services.indexOf(s) % 2}`, "MODEL=Qwen/Qwen3-8B", "MAX_MODEL_LEN=40960", "KV_CACHE_MEMORY_BYTES=8053063680", "MAX_SEQS=8"]);
files.set("playbooks/deploy.yml", ["- hosts: fv-ml1", "  vars:", "    db_password: \"{{ lookup('hashi_vault', 'secret=kv/data/app:password') }}\"", "  tasks:", "    - name: env", "      lineinfile: { path: /srv/svc0.env, line: \"MAX_SEQS=8\" }"]);
files.set("docs/skills/aws.md", ["# AWS keys in examples", "Use the inert example id AKIA0000000000000EXAMPLE in skill pages.", "The documented pair is AKIAIOSFODNN7EXAMPLE and", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "and again AKIA0000000000000EXAMPLE."]);
for (let i = 1; i < 5; i++) planted.push({ kind: "placeholder", file: "docs/skills/aws.md", line: i + 1, expect: "none" });
planted.push({ kind: "vault-reference", file: "playbooks/deploy.yml", line: 3, expect: "none" });

function plant(file, kind, line) {
  const lines = files.get(file) ?? [];
  lines.push(line);
  files.set(file, lines);
  planted.push({ kind, file, line: lines.length, expect: "secret" });
}

const kindNames = Object.keys(kinds);
// Where in the history each planted line lands: spread over the commits, one per kind per service file.
const plan = [];
for (let k = 0; k < kindNames.length; k++) plan.push({ at: Math.floor(((k + 1) * commits) / (kindNames.length + 4)), file: `scripts/${services[k % services.length]}.env`, kind: kindNames[k] });
plan.push({ at: Math.floor(commits * 0.8), file: "docs/examples/deploy.env", kind: "aws-access-key-id", special: "docs/examples" });
plan.push({ at: Math.floor(commits * 0.85), file: "docs/skills/aws.md", kind: "aws-access-key-id", special: "same-line" });
plan.push({ at: Math.floor(commits * 0.9), file: "keys/deploy_key", kind: "private-key", special: "block" });

let stream = "";
const mark = (n) => `:${n}`;
let lastMark = 0;
for (let c = 1; c <= commits; c++) {
  const changed = new Set();
  // Filler: a knob moves in one service file (in place, so line numbers stay put).
  const s = services[c % services.length];
  const env = files.get(`scripts/${s}.env`);
  env[6] = `MAX_SEQS=${4 + (c % 13)}`;
  changed.add(`scripts/${s}.env`);
  if (c === 1) for (const f of files.keys()) changed.add(f);
  for (const p of plan.filter((p) => p.at === c)) {
    if (p.special === "same-line") {
      plant(p.file, "aws-access-key-id (same line as a placeholder)", `EXAMPLE=AKIA0000000000000EXAMPLE REAL=AKIA${pick(UP, 16)}`);
    } else if (p.special === "block") {
      const body = Array.from({ length: 6 }, () => pick(B64, 64));
      files.set(p.file, ["-----BEGIN OPENSSH PRIVATE KEY-----", ...body, "-----END OPENSSH PRIVATE KEY-----"]);
      planted.push({ kind: "private-key", file: p.file, line: 1, expect: "secret" });
    } else if (p.special === "docs/examples") {
      plant(p.file, "aws-access-key-id (in docs/examples/)", kinds[p.kind]());
    } else {
      plant(p.file, p.kind, kinds[p.kind]());
    }
    changed.add(p.file);
  }
  stream += `commit refs/heads/main\nmark ${mark(++lastMark)}\ncommitter Bench <bench@example.com> ${1760000000 + c * 60} +0000\ndata <<EOM\nchange ${c}\nEOM\n`;
  if (c > 1) stream += `from ${mark(lastMark - 1)}\n`;
  for (const f of changed) {
    const text = `${files.get(f).join("\n")}\n`;
    stream += `M 100644 inline ${f}\ndata ${Buffer.byteLength(text)}\n${text}\n`;
  }
}

execFileSync("git", ["init", "-q", "-b", "main", dir]);
execFileSync("git", ["fast-import", "--quiet"], { cwd: dir, input: stream, maxBuffer: 1 << 30 });
execFileSync("git", ["reset", "-q", "--hard", "main"], { cwd: dir });
writeFileSync(join(dir, "..", "planted.json"), `${JSON.stringify(planted, null, 1)}\n`);
console.log(`corpus: ${commits} commits, ${planted.filter((p) => p.expect === "secret").length} planted secrets, ${planted.filter((p) => p.expect === "none").length} planted non-secrets`);
