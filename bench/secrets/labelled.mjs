// The labelled corpus of bench/secrets.sh: for each family, true positives written from the vendor's
// documented format with random bodies, and negatives (the format's placeholders, near misses,
// references); plus the idioms of issue 15 (literal defaults inside references, keys glued to
// escapes). One candidate per line; labels.json says, per file:line, the family and whether a
// scanner should report it. Values are generated here, never stored anywhere else.
// Usage: node labelled.mjs <dir> [positives per family]
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const dir = process.argv[2];
const PER = Number(process.argv[3] ?? 8);
if (!dir) throw new Error("usage: node labelled.mjs <dir> [positives per family]");

let seed = 0x15ec2e75;
const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
const pick = (a, n) => Array.from({ length: n }, () => a[Math.floor(rnd() * a.length)]).join("");
const UP = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const LOW = "abcdefghijklmnopqrstuvwxyz";
const DIG = "0123456789";
const AN = UP + LOW + DIG;
const HEX = "0123456789abcdef";
const B32 = `${UP}234567`;
const B64 = `${AN}+/`;
const U64 = `${AN}-_`;
const BECH = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L";
const uuid = () => [8, 4, 4, 4, 12].map((n) => pick(HEX, n)).join("-");
const b64url = (s) => Buffer.from(s).toString("base64url");
const mixed = (a, n) => {
  for (;;) {
    const s = pick(a, n);
    if (/[a-z]/.test(s) && /[A-Z]/.test(s)) return s;
  }
};
const x = (n, c = "x") => c.repeat(n);

// [family, env name, () => value, [negative lines]]; a value's line is `NAME=value` in one of several
// syntaxes. Negatives are whole lines.
const F = [
  [
    "aws-access-key-id",
    "AWS_ACCESS_KEY_ID",
    () => `AKIA${pick(B32, 16)}`,
    [
      `AWS_ACCESS_KEY_ID=AKIA${x(16, "X")}`,
      "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE",
      "AWS_ACCESS_KEY_ID=ASIAIOSFODNN7EXAMPLE",
      "AWS_ACCESS_KEY_ID=${AWS_ACCESS_KEY_ID}",
      `AWS_ACCESS_KEY_ID=AKIA${pick(B32, 12)}`,
    ],
  ],
  [
    "aws-secret-access-key",
    "AWS_SECRET_ACCESS_KEY",
    () => pick(B64, 40),
    [
      "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
      `AWS_SECRET_ACCESS_KEY=${x(40)}`,
      "AWS_SECRET_ACCESS_KEY=${AWS_SECRET_ACCESS_KEY}",
      `checksum=${pick(B64, 40)}`,
    ],
  ],
  [
    "github",
    "GITHUB_TOKEN",
    () => `gh${pick("pousr", 1)}_${pick(AN, 36)}`,
    [
      `GITHUB_TOKEN=ghp_${x(36)}`,
      `GITHUB_TOKEN=ghp_${x(36, "X")}`,
      "GITHUB_TOKEN=ghp_your_github_token_here",
      "GITHUB_TOKEN=${{ secrets.GITHUB_TOKEN }}",
    ],
  ],
  [
    "github-fine-grained",
    "GH_PAT",
    () => `github_pat_${pick(AN, 22)}_${pick(AN, 59)}`,
    [`GH_PAT=github_pat_${x(22)}_${x(59)}`, "GH_PAT=github_pat_xxxxxxxxxxxxxxxxxxxxxx", "GH_PAT=${GH_PAT}"],
  ],
  [
    "gitlab-pat",
    "GITLAB_TOKEN",
    () => `glpat-${pick(U64, 20)}`,
    [`GITLAB_TOKEN=glpat-${x(20, "X")}`, "GITLAB_TOKEN=glpat-your-gitlab-token-here", "GITLAB_TOKEN=glpat-abc"],
  ],
  [
    "gitlab-other",
    "GITLAB_RUNNER_TOKEN",
    () =>
      [
        `glrt-${pick(U64, 20)}`,
        `glptt-${pick(HEX, 40)}`,
        `gldt-${pick(U64, 20)}`,
        `GR1348941${pick(U64, 20)}`,
        `glsoat-${pick(U64, 20)}`,
        `glcbt-64_${pick(U64, 20)}`,
      ][Math.floor(rnd() * 6)],
    [`GITLAB_RUNNER_TOKEN=glrt-${x(20, "X")}`, "GITLAB_RUNNER_TOKEN=glrt-abc", `GITLAB_TRIGGER=glptt-${x(40, "0")}`],
  ],
  [
    "slack-token",
    "SLACK_BOT_TOKEN",
    () => `xoxb-${pick(DIG, 12)}-${pick(DIG, 13)}-${pick(AN, 24)}`,
    [
      `SLACK_BOT_TOKEN=xoxb-${x(12, "0")}-${x(13, "0")}-${x(24)}`,
      "SLACK_BOT_TOKEN=xoxb-your-bot-token",
      "SLACK_BOT_TOKEN=${SLACK_BOT_TOKEN}",
    ],
  ],
  [
    "slack-app-config",
    "SLACK_APP_TOKEN",
    () => (rnd() < 0.5 ? `xapp-1-A0${pick(`${UP}${DIG}`, 9)}-${pick(DIG, 13)}-${pick(HEX, 64)}` : `xoxe.xoxp-1-${pick(AN, 163)}`),
    ["SLACK_APP_TOKEN=xapp-your-app-token", `SLACK_APP_TOKEN=xapp-1-${x(11, "X")}-${x(13, "0")}-${x(64)}`],
  ],
  [
    "slack-webhook",
    "SLACK_WEBHOOK_URL",
    () => `https://hooks.slack.com/services/T0${pick(`${UP}${DIG}`, 8)}/B0${pick(`${UP}${DIG}`, 8)}/${pick(AN, 24)}`,
    [
      `SLACK_WEBHOOK_URL=https://hooks.slack.com/services/T00000000/B00000000/${x(24, "X")}`,
      "SLACK_WEBHOOK_URL=https://hooks.slack.com/services/",
      "SLACK_WEBHOOK_URL=${SLACK_WEBHOOK_URL}",
    ],
  ],
  ["private-key", null, null, []],
  ["gcp-service-account", null, null, []],
  [
    "anthropic",
    "ANTHROPIC_API_KEY",
    () => `sk-ant-api03-${pick(U64, 93)}AA`,
    [`ANTHROPIC_API_KEY=sk-ant-api03-${x(95)}`, "ANTHROPIC_API_KEY=sk-ant-your-key-here", "ANTHROPIC_API_KEY=${ANTHROPIC_API_KEY}"],
  ],
  [
    "openai",
    "OPENAI_API_KEY",
    () => `sk-proj-${pick(U64, 74)}T3BlbkFJ${pick(U64, 74)}`,
    [
      `OPENAI_API_KEY=sk-${x(48)}`,
      "OPENAI_API_KEY=sk-proj-REPLACE_ME_REPLACE_ME_REPLACE_ME",
      "OPENAI_API_KEY=sk-abcdefghijklmnopqrstuvwxyz0123456789",
      "OPENAI_API_KEY=sk-...",
    ],
  ],
  ["groq", "GROQ_API_KEY", () => `gsk_${pick(AN, 52)}`, [`GROQ_API_KEY=gsk_${x(52)}`, "GROQ_API_KEY=gsk_your_groq_api_key_here"]],
  [
    "huggingface",
    "HF_TOKEN",
    () => `hf_${mixed(UP + LOW, 34)}`,
    [
      `HF_TOKEN=hf_${x(34)}`,
      "HF_HUB_ENABLE_HF_TRANSFER=1 hf_hub_enable_hf_transfer_and_cache_dir",
      `HF_HOME=/srv/hf_${"modelcachedirectoryforthefleetok"}`,
      "HF_TOKEN=${HF_TOKEN}",
    ],
  ],
  [
    "huggingface-org",
    "HF_ORG_TOKEN",
    () => `api_org_${mixed(UP + LOW, 34)}`,
    [`HF_ORG_TOKEN=api_org_${x(34)}`, "HF_ORG_TOKEN=api_org_abc"],
  ],
  [
    "google-api-key",
    "GOOGLE_API_KEY",
    () => `AIza${pick(U64, 35)}`,
    [
      "GOOGLE_API_KEY=AIzaSyDMAScliyLx7F0NPDEJi1QmyCgHIAODrlU",
      "GOOGLE_API_KEY=AIzaSyAnLA7NfeLquW1tJFpx_eQCxoX-oo6YyIs",
      "GOOGLE_API_KEY=AIzaSyabcdefghijklmnopqrstuvwxyz1234567",
      `GOOGLE_API_KEY=AIza${x(35, "X")}`,
    ],
  ],
  [
    "stripe",
    "STRIPE_SECRET_KEY",
    () => `${pick("sr", 1)}k_${rnd() < 0.5 ? "live" : "test"}_${pick(AN, 24)}`,
    [
      "STRIPE_SECRET_KEY=sk_test_4eC39HqLyjWDarjtT1zdp7dc",
      `STRIPE_SECRET_KEY=sk_live_${x(24)}`,
      `STRIPE_PUBLISHABLE_KEY=pk_live_${pick(AN, 24)}`,
    ],
  ],
  [
    "npm",
    "NPM_TOKEN",
    () => `npm_${pick(AN, 36)}`,
    [`NPM_TOKEN=npm_${x(36)}`, "npm_config_registry=https://registry.npmjs.org/", "NPM_TOKEN=${NPM_TOKEN}"],
  ],
  [
    "pypi",
    "PYPI_TOKEN",
    () => `pypi-AgEIcHlwaS5vcmc${pick(U64, 140)}`,
    [`PYPI_TOKEN=pypi-AgEIcHlwaS5vcmc${x(60)}`, "PYPI_TOKEN=pypi-your-token"],
  ],
  [
    "docker-hub",
    "DOCKERHUB_TOKEN",
    () => `dckr_pat_${pick(U64, 27)}`,
    [`DOCKERHUB_TOKEN=dckr_pat_${x(27)}`, "DOCKERHUB_TOKEN=dckr_pat_124509ugsdjga93"],
  ],
  [
    "azure-storage-key",
    "AZURE_STORAGE_CONNECTION_STRING",
    () => `DefaultEndpointsProtocol=https;AccountName=fleet${pick(LOW, 4)};AccountKey=${pick(B64, 86)}==;EndpointSuffix=core.windows.net`,
    [
      "AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;",
      `"integrity": "sha512-${pick(B64, 86)}=="`,
    ],
  ],
  [
    "azure-ad-client-secret",
    "AZURE_CLIENT_SECRET",
    () => `${pick(AN, 3)}${pick(DIG, 1)}Q~${pick(`${AN}_.~-`, 34)}`,
    ["AZURE_CLIENT_SECRET=${AZURE_CLIENT_SECRET}", "AZURE_CLIENT_SECRET=your-client-secret"],
  ],
  [
    "twilio",
    "TWILIO_API_KEY",
    () => (rnd() < 0.5 ? `SK${pick(HEX, 32)}` : null),
    [`TWILIO_API_KEY=SK${x(32, "0")}`, `TWILIO_ACCOUNT_SID=AC${pick(HEX, 32)}`, `build_task=TASK${pick(HEX, 32)}`],
  ],
  [
    "sendgrid",
    "SENDGRID_API_KEY",
    () => `SG.${pick(U64, 22)}.${pick(U64, 43)}`,
    [`SENDGRID_API_KEY=SG.${x(22)}.${x(43)}`, "SENDGRID_API_KEY=SG.your-key"],
  ],
  [
    "discord",
    "DISCORD_BOT_TOKEN",
    () =>
      rnd() < 0.5
        ? `${b64url(pick("123456789", 1) + pick(DIG, 17)).slice(0, 24)}.${pick(U64, 6)}.${pick(U64, 38)}`
        : `https://discord.com/api/webhooks/${pick(DIG, 19)}/${pick(U64, 68)}`,
    ["DISCORD_BOT_TOKEN=${DISCORD_BOT_TOKEN}", "DISCORD_WEBHOOK=https://discord.com/api/webhooks/", "NGINX_VERSION=Nginx.1.25.3"],
  ],
  [
    "telegram",
    "TELEGRAM_BOT_TOKEN",
    () => `${pick("123456789", 1)}${pick(DIG, 9)}:AA${pick(U64, 33)}`,
    [`TELEGRAM_BOT_TOKEN=123456789:AA${x(33)}`, "TELEGRAM_BOT_TOKEN=${TELEGRAM_BOT_TOKEN}", "START_AT=12:30:AM"],
  ],
  [
    "databricks",
    "DATABRICKS_TOKEN",
    () => `dapi${pick(HEX, 32)}`,
    [`DATABRICKS_TOKEN=dapi${x(32, "0")}`, "RAPIDAPI_HOST=rapidapi.example"],
  ],
  [
    "doppler",
    "DOPPLER_TOKEN",
    () => `dp.${pick(["pt", "st", "sa", "ct"], 1)}.${pick(AN, 43)}`,
    [`DOPPLER_TOKEN=dp.st.${x(43)}`, "DOPPLER_TOKEN=dp.st.dev"],
  ],
  [
    "shopify",
    "SHOPIFY_TOKEN",
    () => `shp${pick(["at", "ca", "pa", "ss"], 1)}_${pick(HEX, 32)}`,
    [`SHOPIFY_TOKEN=shpat_${x(32, "0")}`, "SHOPIFY_TOKEN=shpat_your_token"],
  ],
  [
    "digitalocean",
    "DIGITALOCEAN_TOKEN",
    () => `do${pick("opr", 1)}_v1_${pick(HEX, 64)}`,
    [`DIGITALOCEAN_TOKEN=dop_v1_${x(64, "0")}`, "DIGITALOCEAN_TOKEN=dop_v1_abc"],
  ],
  [
    "age",
    "AGE_KEY",
    () => `AGE-SECRET-KEY-1${pick(BECH, 58)}`,
    [`AGE_RECIPIENT=age1${pick(BECH.toLowerCase(), 58)}`, "AGE_KEY=AGE-SECRET-KEY-1..."],
  ],
  [
    "terraform",
    "TF_TOKEN_app_terraform_io",
    () => `${pick(AN, 14)}.atlasv1.${pick(U64, 67)}`,
    [`TF_TOKEN_app_terraform_io=${x(14)}.atlasv1.${x(67)}`, "TF_TOKEN_app_terraform_io=${TF_TOKEN}"],
  ],
  [
    "vault",
    "VAULT_TOKEN",
    () => (rnd() < 0.6 ? `hvs.${pick(U64, 91)}` : `s.${mixed(AN, 24)}`),
    [
      `VAULT_TOKEN=hvs.${x(91)}`,
      "VAULT_TOKEN=${VAULT_TOKEN}",
      "VAULT_ADDR=https://vault.internal:8200",
      "VAULT_PATH=s.abcdefghijklmnopqrstuvwx",
    ],
  ],
  [
    "heroku",
    "HEROKU_API_KEY",
    () => (rnd() < 0.5 ? `HRKU-AA${pick(U64, 58)}` : uuid()),
    [`HEROKU_API_KEY=HRKU-AA${x(58)}`, `REQUEST_ID=${uuid()}`],
  ],
  [
    "grafana",
    "GRAFANA_TOKEN",
    () => (rnd() < 0.5 ? `glc_${pick(B64, 80)}=` : `glsa_${pick(AN, 32)}_${pick(HEX, 8)}`),
    [`GRAFANA_TOKEN=glsa_${x(32)}_${x(8, "0")}`, "GRAFANA_TOKEN=glc_abc"],
  ],
  [
    "sentry",
    "SENTRY_AUTH_TOKEN",
    () => `sntryu_${pick(HEX, 64)}`,
    [`SENTRY_AUTH_TOKEN=sntryu_${x(64, "0")}`, "SENTRY_DSN=https://public@sentry.example.com/1"],
  ],
  ["linear", "LINEAR_API_KEY", () => `lin_api_${pick(AN, 40)}`, [`LINEAR_API_KEY=lin_api_${x(40)}`]],
  ["postman", "POSTMAN_API_KEY", () => `PMAK-${pick(HEX, 24)}-${pick(HEX, 34)}`, [`POSTMAN_API_KEY=PMAK-${x(24, "0")}-${x(34, "0")}`]],
  [
    "pulumi",
    "PULUMI_ACCESS_TOKEN",
    () => `pul-${pick(HEX, 40)}`,
    [`PULUMI_ACCESS_TOKEN=pul-${x(40, "0")}`, "BRANCH=pull-request-template"],
  ],
  [
    "jwt",
    "AUTH_JWT",
    () => `${b64url('{"alg":"HS256","typ":"JWT"}')}.${b64url(`{"sub":"${pick(AN, 12)}","iat":1760000000}`)}.${pick(U64, 43)}`,
    [
      "AUTH_JWT=eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
      "JWT_HEADER=eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9",
    ],
  ],
  [
    "jwt-unsigned",
    "SESSION_TOKEN",
    () => `${b64url('{"alg":"none","typ":"JWT"}')}.${b64url(`{"sub":"${pick(AN, 12)}","admin":true}`)}.`,
    ["SESSION_HEADER=eyJhbGciOiJub25lIn0."],
  ],
  [
    "database-url",
    "DATABASE_URL",
    () =>
      `${pick(["postgres", "postgresql", "mysql", "mongodb", "mongodb+srv", "redis", "rediss", "amqp", "amqps"], 1)}://svc:${pick(AN, 20)}@db.internal:5432/app`,
    [
      "DATABASE_URL=postgres://postgres:postgres@db:5432/app",
      "DATABASE_URL=postgres://app:${DB_PASSWORD}@db/app",
      "DATABASE_URL=postgres://app@db:5432/app",
      "BROKER_URL=amqp://guest:guest@mq:5672//",
      "DATABASE_URL=postgres://user:<password>@host/db",
    ],
  ],
  [
    "basic-auth-url",
    "PIP_INDEX_URL",
    () => `https://deploy:${pick(AN, 18)}@pypi.internal/simple`,
    ["PIP_INDEX_URL=https://user:password@pypi.example/simple", "API_URL=https://example.com:8443/v1", "REPO=git@github.com:org/repo.git"],
  ],
  [
    "generic",
    null,
    () => `${pick(AN, 10)}${pick("!@#%^&*", 1)}${pick(AN, 8)}`,
    [
      "TOKENIZER=Qwen/Qwen3-8B-Instruct",
      "MAX_NUM_BATCHED_TOKENS=8192",
      "DB_PASSWORD_FILE=/run/secrets/db_password",
      "TOKEN_URL=https://auth.example.com/oauth/token",
      "password = getPasswordFromVault()",
      "token: settings.auth.github.token_value",
      "PASSWORD=changeme",
      "DB_PASSWORD=${DB_PASSWORD:?set it}",
      "secret_name: my_app_database_secret_v2",
      "password: ****************",
      "API_KEY=YOUR_API_KEY_HERE",
      "PASSTHROUGH_MODE=enabled",
      "SECRET_VERSION=2026.10.05-1234567",
      "api_key: <your-api-key>",
      "--override-generation-config '{\"max_new_tokens\": 2048}'",
    ],
  ],
];

const GENERIC_NAMES = [
  "DB_PASS",
  "SERVICE_API_KEY_PROD",
  "mySecretString",
  "REDIS_PASSWORD",
  "client_secret",
  "AUTH_TOKEN",
  "SMTP_PASSWORD",
  "encryption_key",
];
const syntaxes = [
  (n, v) => `${n}=${v}`,
  (n, v) => `  ${n.toLowerCase()}: "${v}"`,
  (n, v) => `{"${n}": "${v}"}`,
  (n, v) => `export ${n}='${v}'`,
];

const files = new Map();
const labels = [];
function add(file, text, family, expect, kind) {
  const lines = files.get(file) ?? [];
  lines.push(...text.split("\n"));
  files.set(file, lines);
  labels.push({ file, line: lines.length - text.split("\n").length + 1, family, expect, kind });
}

for (const [family, name, gen, negatives] of F) {
  const file = `fleet/${family}.env`;
  if (family === "private-key" || family === "gcp-service-account") continue;
  for (let i = 0; i < PER; i++) {
    let v = gen();
    if (v === null) v = `SK${pick(HEX, 32)}`;
    const n = family === "generic" ? GENERIC_NAMES[i % GENERIC_NAMES.length] : name;
    add(file, syntaxes[i % syntaxes.length](n, v), family, "secret", "positive");
  }
  for (const l of negatives) add(file, l, family, "none", "negative");
}

// Private keys and service-account JSON: one file each.
for (let i = 0; i < PER; i++) {
  const body = Array.from({ length: 6 }, () => pick(B64, 64)).join("\n");
  files.set(`keys/deploy_${i}.pem`, [
    `-----BEGIN ${["RSA ", "OPENSSH ", "EC ", ""][i % 4]}PRIVATE KEY-----`,
    ...body.split("\n"),
    `-----END ${["RSA ", "OPENSSH ", "EC ", ""][i % 4]}PRIVATE KEY-----`,
  ]);
  labels.push({ file: `keys/deploy_${i}.pem`, line: 1, family: "private-key", expect: "secret", kind: "positive" });
  const sa = [
    "{",
    '  "type": "service_account",',
    `  "project_id": "fleet-${pick(LOW, 6)}",`,
    `  "private_key_id": "${pick(HEX, 40)}",`,
    `  "private_key": "-----BEGIN PRIVATE KEY-----\\n${Array.from({ length: 4 }, () => pick(B64, 64)).join("\\n")}\\n-----END PRIVATE KEY-----\\n",`,
    `  "client_email": "svc@fleet.iam.gserviceaccount.com"`,
    "}",
  ];
  files.set(`keys/sa_${i}.json`, sa);
  labels.push({ file: `keys/sa_${i}.json`, line: 5, family: "gcp-service-account", expect: "secret", kind: "positive" });
}
add("keys/notes.md", 'if line.startswith("-----BEGIN RSA PRIVATE KEY-----"):', "private-key", "none", "negative");
add("keys/notes.md", `-----BEGIN PUBLIC KEY-----\n${pick(B64, 64)}\n-----END PUBLIC KEY-----`, "private-key", "none", "negative");
add("keys/notes.md", '{"type": "service_account", "private_key": "${GCP_PRIVATE_KEY}"}', "gcp-service-account", "none", "negative");

// Issue 15 items 2 and 5: literals written into references, and keys glued to escapes.
const aws = () => `AKIA${pick(B32, 16)}`;
const idioms = [
  [`AWS_ACCESS_KEY_ID=\${AWS_ACCESS_KEY_ID:-${aws()}}`, "secret"],
  [`AWS_ACCESS_KEY_ID=\${AWS_ACCESS_KEY_ID-${aws()}}`, "secret"],
  [`      - HF_TOKEN=\${HF_TOKEN:-hf_${mixed(UP + LOW, 34)}}`, "secret"],
  [`aws_key: "{{ lookup('env', 'AWS_KEY') | default('${aws()}') }}"`, "secret"],
  [`db_password: '{{ vault_db_password | default("${pick(AN, 12)}#${pick(AN, 6)}") }}'`, "secret"],
  [`key: "{{ '${aws()}' }}"`, "secret"],
  [`https://x.test/cb?cred%3D${aws()}%26next`, "secret"],
  [`{"env":"KEY\\u003d${aws()}"}`, "secret"],
  [`key${aws()}`, "secret"],
  [`curl https://api.telegram.org/bot${pick("123456789", 1)}${pick(DIG, 8)}:AA${pick(U64, 33)}/getMe`, "secret"],
  [`EXAMPLE=AKIA${x(16, "X")} REAL=${aws()}`, "secret"],
  ["AWS_ACCESS_KEY_ID=${AWS_ACCESS_KEY_ID}", "none"],
  [`password: "{{ lookup('hashi_vault', 'secret=kv/data/app:${pick(AN, 20)}') }}"`, "none"],
  ['aws_key: "{{ vault_aws_access_key_id }}"', "none"],
  ["  AWS_KEY: ${{ secrets.AWS_ACCESS_KEY_ID }}", "none"],
];
// Config lines of a GPU fleet that hold no secret: digests, revisions, ids, and settings whose names
// hold secret words but whose values are not credentials.
const config = [
  `IMAGE=vllm/vllm-openai@sha256:${pick(HEX, 64)}`,
  `MODEL_REVISION=${pick(HEX, 40)}`,
  `GIT_SHA=${pick(HEX, 40)}`,
  `REQUEST_ID=${uuid()}`,
  `--hash=sha256:${pick(HEX, 64)}`,
  `"integrity": "sha512-${pick(B64, 86)}=="`,
  `CA_BUNDLE_B64=${pick(B64, 120)}`,
  "CUDA_VISIBLE_DEVICES=0,1",
  "KV_CACHE_MEMORY_BYTES=8053063680",
  "TOKENIZER_MODE=auto",
  "MAX_TOKENS=4096",
  "PASSWORD_MIN_LENGTH=12",
  "TOKEN_TTL=3600",
  "TOKEN_ENDPOINT=https://login.example.com/oauth2/v2.0/token",
  "SECRET_ARN=arn:aws:secretsmanager:us-east-1:123456789012:secret:prod/db-AbCdEf",
  "AUTH_TOKEN_HEADER=X-Api-Key",
  "API_KEY_SECRET_NAME=fleet-prod-openai",
  "SECRET_KEY_REF=vllm-secrets",
  `SESSION_ID=${pick(HEX, 32)}`,
  "SERVED_MODEL_NAME=Qwen/Qwen3-8B-Instruct-AWQ",
  `HF_HUB_REVISION=${pick(HEX, 40)}`,
  "password_policy: {min_length: 12, require_symbols: true}",
  "- name: rotate the api token\n  command: /usr/local/bin/rotate-token --all",
  "NCCL_SOCKET_IFNAME=eth0",
  "VLLM_ATTENTION_BACKEND=FLASHINFER",
];
for (const l of config) add("scripts/fleet.env", l, "fleet config (no secret)", "none", "negative");
for (const [l, expect] of idioms)
  add("compose/idioms.yaml", l, "idioms (items 2 and 5)", expect, expect === "secret" ? "positive" : "negative");

mkdirSync(dir, { recursive: true });
for (const [f, lines] of files) {
  mkdirSync(join(dir, f, ".."), { recursive: true });
  writeFileSync(join(dir, f), `${lines.join("\n")}\n`);
}
writeFileSync(join(dir, "..", "labels.json"), `${JSON.stringify(labels, null, 1)}\n`);
const pos = labels.filter((l) => l.expect === "secret").length;
console.log(`corpus: ${new Set(labels.map((l) => l.family)).size} families, ${pos} secrets, ${labels.length - pos} negatives`);
