// One true-positive and at least one false-positive row per detector family of rules/secrets.yaml.
// [detector, line, the value reported]; [why, line]: nothing reported.
import { describe, expect, test } from "vitest";
import { builtinDetectors } from "../../src/rules/detectors.js";
import { numberLines, scanLines } from "../../src/secrets/scan.js";
import { ALPHA, SAMPLE, rand } from "./families.js";

const set = builtinDetectors();
const found = (text: string): { rule: string; value: string }[] =>
  scanLines(numberLines(text), set).map((m) => ({ rule: m.detector.rule, value: m.value }));
const S = SAMPLE as Record<string, string> & { [k: string]: string };
const v = (id: string): string => {
  const x = S[id];
  if (x === undefined) throw new Error(`no sample for ${id}`);
  return x;
};

const TRUE_POSITIVES: [string, string, string][] = [
  ["aws-access-key-id", `AWS_ACCESS_KEY_ID=${v("aws-access-key-id")}`, v("aws-access-key-id")],
  ["github-token", `GITHUB_TOKEN=${v("github-token")}`, v("github-token")],
  ["github-pat", `GH_PAT=${v("github-pat")}`, v("github-pat")],
  ["gitlab-token", `GITLAB_TOKEN=${v("gitlab-token")}`, v("gitlab-token")],
  ["gitlab-other-token", `RUNNER_TOKEN=${v("gitlab-other-token")}`, v("gitlab-other-token")],
  ["gitlab-other-token", `CI_TRIGGER=glptt-${rand(ALPHA.hex, 40)}`, ""],
  ["gitlab-other-token", `REG=GR1348941${rand(ALPHA.url64, 20)}`, ""],
  ["slack-config-token", `SLACK_CONFIG=${v("slack-config-token")}`, v("slack-config-token")],
  ["slack-app-token", `SLACK_APP_TOKEN=${v("slack-app-token")}`, v("slack-app-token")],
  ["slack-token", `SLACK_BOT_TOKEN=${v("slack-token")}`, v("slack-token")],
  ["slack-webhook", `SLACK_WEBHOOK=https://hooks.slack.com/services/${v("slack-webhook")}`, v("slack-webhook")],
  ["age-secret-key", `# key: ${v("age-secret-key")}`, v("age-secret-key")],
  ["anthropic-api-key", `ANTHROPIC_API_KEY=${v("anthropic-api-key")}`, v("anthropic-api-key")],
  ["openai-api-key", `OPENAI_API_KEY=${v("openai-api-key")}`, v("openai-api-key")],
  ["groq-api-key", `GROQ_API_KEY=${v("groq-api-key")}`, v("groq-api-key")],
  ["perplexity-api-key", `PPLX=${v("perplexity-api-key")}`, v("perplexity-api-key")],
  ["huggingface-token", `HF_TOKEN=${v("huggingface-token")}`, v("huggingface-token")],
  ["huggingface-org-token", `HF_ORG=${v("huggingface-org-token")}`, v("huggingface-org-token")],
  ["google-api-key", `GOOGLE_API_KEY=${v("google-api-key")}`, v("google-api-key")],
  ["stripe-secret-key", `STRIPE_KEY=${v("stripe-secret-key")}`, v("stripe-secret-key")],
  ["stripe-secret-key", `STRIPE_TEST=sk_test_${rand(ALPHA.alnum, 24)}`, ""],
  ["stripe-secret-key", `STRIPE_RESTRICTED=rk_live_${rand(ALPHA.alnum, 24)}`, ""],
  ["npm-token", `//registry.npmjs.org/:_authToken=${v("npm-token")}`, v("npm-token")],
  ["pypi-token", `password = ${v("pypi-token")}`, v("pypi-token")],
  ["docker-hub-token", `DOCKERHUB_TOKEN=${v("docker-hub-token")}`, v("docker-hub-token")],
  [
    "azure-storage-key",
    `AZ=DefaultEndpointsProtocol=https;AccountName=fleet;AccountKey=${v("azure-storage-key")};EndpointSuffix=core.windows.net`,
    v("azure-storage-key"),
  ],
  ["azure-ad-client-secret", `AZURE_CLIENT_SECRET=${v("azure-ad-client-secret")}`, v("azure-ad-client-secret")],
  ["twilio-api-key", `TWILIO_API_KEY=${v("twilio-api-key")}`, v("twilio-api-key")],
  ["twilio-auth-token", `TWILIO_AUTH_TOKEN=${v("twilio-auth-token")}`, v("twilio-auth-token")],
  ["sendgrid-api-key", `SENDGRID_API_KEY=${v("sendgrid-api-key")}`, v("sendgrid-api-key")],
  ["discord-bot-token", `DISCORD_TOKEN=${v("discord-bot-token")}`, v("discord-bot-token")],
  ["discord-webhook", `HOOK=https://discord.com/api/webhooks/${v("discord-webhook")}`, v("discord-webhook")],
  ["teams-webhook", `TEAMS=https://fleet.webhook.office.com/webhookb2/${v("teams-webhook")}`, v("teams-webhook")],
  ["telegram-bot-token", `TELEGRAM_BOT_TOKEN=${v("telegram-bot-token")}`, v("telegram-bot-token")],
  ["telegram-bot-token", `curl https://api.telegram.org/bot${v("telegram-bot-token")}/getMe`, v("telegram-bot-token")],
  ["databricks-token", `DATABRICKS_TOKEN=${v("databricks-token")}`, v("databricks-token")],
  ["doppler-token", `DOPPLER_TOKEN=${v("doppler-token")}`, v("doppler-token")],
  ["shopify-token", `SHOPIFY=${v("shopify-token")}`, v("shopify-token")],
  ["digitalocean-token", `DO_TOKEN=${v("digitalocean-token")}`, v("digitalocean-token")],
  ["terraform-token", `TF_TOKEN_app_terraform_io=${v("terraform-token")}`, v("terraform-token")],
  ["vault-token", `VAULT_TOKEN=${v("vault-token")}`, v("vault-token")],
  ["vault-token-legacy", `VAULT_TOKEN=${v("vault-token-legacy")}`, v("vault-token-legacy")],
  ["heroku-api-key", `HEROKU=${v("heroku-api-key")}`, v("heroku-api-key")],
  ["heroku-api-key-legacy", `HEROKU_API_KEY=${v("heroku-api-key-legacy")}`, v("heroku-api-key-legacy")],
  ["grafana-cloud-token", `GRAFANA=${v("grafana-cloud-token")}`, v("grafana-cloud-token")],
  ["grafana-service-account-token", `GRAFANA_SA=${v("grafana-service-account-token")}`, v("grafana-service-account-token")],
  ["grafana-api-key", `GRAFANA_KEY=${v("grafana-api-key")}`, v("grafana-api-key")],
  ["sentry-token", `SENTRY_AUTH_TOKEN=${v("sentry-token")}`, v("sentry-token")],
  ["linear-api-key", `LINEAR=${v("linear-api-key")}`, v("linear-api-key")],
  ["postman-api-key", `POSTMAN=${v("postman-api-key")}`, v("postman-api-key")],
  ["pulumi-token", `PULUMI_ACCESS_TOKEN=${v("pulumi-token")}`, v("pulumi-token")],
  ["onepassword-service-token", `OP_SERVICE_ACCOUNT_TOKEN=${v("onepassword-service-token")}`, v("onepassword-service-token")],
  ["newrelic-key", `NEW_RELIC=${v("newrelic-key")}`, v("newrelic-key")],
  ["jwt", `Authorization: Bearer ${v("jwt")}`, v("jwt")],
  ["jwt-unsigned", `SESSION=${v("jwt-unsigned")}`, v("jwt-unsigned")],
  ["database-url-password", `DATABASE_URL=postgres://app:${v("database-url-password")}@db:5432/app`, v("database-url-password")],
  ["database-url-password", `MONGO=mongodb+srv://svc:${v("database-url-password")}@cluster0.x.mongodb.net/db`, v("database-url-password")],
  ["database-url-password", `CELERY_BROKER=amqps://svc:${v("database-url-password")}@mq:5671/`, v("database-url-password")],
  ["database-url-password", `REDIS_URL=rediss://default:${v("database-url-password")}@cache:6380/0`, v("database-url-password")],
  ["database-url-password", `DSN=mysql://root:${v("database-url-password")}@127.0.0.1/app`, v("database-url-password")],
  ["basic-auth-url", `MIRROR=https://deploy:${v("basic-auth-url")}@mirror.internal/simple`, v("basic-auth-url")],
  ["artifactory-api-key", `ARTIFACTORY_API_KEY=${v("artifactory-api-key")}`, v("artifactory-api-key")],
  [
    "artifactory-reference-token",
    `curl -H "Authorization: Bearer ${v("artifactory-reference-token")}" https://x.jfrog.io`,
    v("artifactory-reference-token"),
  ],
  ["tailscale-key", `TS_AUTHKEY=${v("tailscale-key")}`, v("tailscale-key")],
  ["notion-token", `NOTION=${v("notion-token")}`, v("notion-token")],
  ["notion-token", `notion: "secret_${rand(ALPHA.alnum, 43)}"`, ""],
  ["mailchimp-api-key", `MC=${v("mailchimp-api-key")}`, v("mailchimp-api-key")],
  ["aws-bedrock-api-key", `AWS_BEARER_TOKEN_BEDROCK=${v("aws-bedrock-api-key")}`, v("aws-bedrock-api-key")],
  ["aws-bedrock-api-key", `BEDROCK=bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t${rand(ALPHA.b64, 200)}==`, ""],
  ["vercel-token", `VERCEL_TOKEN=${v("vercel-token")}`, v("vercel-token")],
  ["square-token", `SQUARE=${v("square-token")}`, v("square-token")],
  ["square-token", `secret: sq0csp-${rand(ALPHA.url64, 43)}`, ""],
  ["square-token", `token: sandbox-sq0atb-${rand(ALPHA.url64, 22)}`, ""],
  ["npm-token-legacy", `//registry.npmjs.org/:_authToken=${v("npm-token-legacy")}`, v("npm-token-legacy")],
  ["npm-token-legacy", `export NPM_TOKEN="${v("npm-token-legacy")}"`, v("npm-token-legacy")],
  ["ansible-vault-plaintext", `db_password: !vault ${v("ansible-vault-plaintext")}`, v("ansible-vault-plaintext")],
  ["generic-secret", `DB_PASS=${v("generic-secret")}`, v("generic-secret")],
  ["generic-secret", `SERVICE_API_KEY_PROD="${v("generic-secret")}"`, v("generic-secret")],
  ["generic-secret", `mySecretString = '${v("generic-secret")}'`, v("generic-secret")],
];

const FALSE_POSITIVES: [string, string, string][] = [
  ["gitlab-other-token", "too short", "glrt-abc123"],
  ["slack-config-token", "too short", "xoxe-1-abcdef"],
  ["slack-app-token", "no id parts", "xapp-token-here"],
  ["slack-webhook", "the bare host", "see https://hooks.slack.com/services/ for setup"],
  ["gcp-service-account", "a private_key field outside a service-account file", `{"private_key": "see vault"}`],
  ["age-secret-key", "a public age recipient", `age1${rand(ALPHA.bech32, 58).toLowerCase()}`],
  ["groq-api-key", "too short", "gsk_abc"],
  ["perplexity-api-key", "too short", "pplx-abc"],
  ["huggingface-token", "a long identifier", "hf_hub_enable_hf_transfer_and_cache_dir"],
  ["huggingface-token", "one long lowercase word", `hf_${"modelcardsareverynicetohavehereok"}`],
  ["huggingface-org-token", "too short", "api_org_abc"],
  ["google-api-key", "one character too long", `${v("google-api-key")}x`],
  ["stripe-secret-key", "a publishable key", `pk_live_${rand(ALPHA.alnum, 24)}`],
  ["npm-token", "an identifier", "npm_config_registry"],
  ["pypi-token", "the prefix alone", "pypi-AgEIcHlwaS5vcmc"],
  ["docker-hub-token", "too short", "dckr_pat_abc"],
  ["azure-storage-key", "an npm integrity hash (88 base64 without an account-key name)", `"integrity": "sha512-${rand(ALPHA.b64, 86)}=="`],
  ["azure-ad-client-secret", "a tilde path", "~/Q~backup"],
  ["twilio-api-key", "SK inside a word", `TASK${rand(ALPHA.hex, 32)}`],
  ["twilio-auth-token", "a hash with no twilio name", `checksum=${rand(ALPHA.hex, 32)}`],
  ["sendgrid-api-key", "a short SG. word", "SG.example"],
  ["discord-bot-token", "a dotted version", "Nginx.1.25.3"],
  ["discord-bot-token", "three parts, first not a base64 id", `MAaaaaaaaaaaaaaaaaaaaaaaa.${rand(ALPHA.url64, 6)}.${rand(ALPHA.url64, 27)}`],
  ["discord-webhook", "a webhook doc link", "https://discord.com/developers/docs/resources/webhook"],
  ["teams-webhook", "the host alone", "https://fleet.webhook.office.com/"],
  ["telegram-bot-token", "a time", "at 12:30:AM"],
  ["databricks-token", "dapi in a word", "rapidapi_host"],
  ["doppler-token", "too short", "dp.pt.abc"],
  ["shopify-token", "too short", "shpat_123"],
  ["digitalocean-token", "too short", "dop_v1_abc"],
  ["terraform-token", "the word alone", "atlasv1"],
  ["vault-token", "too short", "hvs.abc"],
  ["vault-token-legacy", "an s. word on a vault line (no digits, one case)", "vault path s.abcdefghijklmnopqrstuvwx"],
  ["vault-token-legacy", "s. + 24 without the word vault", `x = s.${rand(ALPHA.alnum, 24)}`],
  ["heroku-api-key", "too short", "HRKU-AAabc"],
  ["heroku-api-key-legacy", "a UUID with no heroku name", `request_id=${[8, 4, 4, 4, 12].map((n) => rand(ALPHA.hex, n)).join("-")}`],
  ["grafana-cloud-token", "too short", "glc_abc"],
  ["grafana-service-account-token", "too short", "glsa_abc_def"],
  ["grafana-api-key", 'a short base64 of {"k":', "eyJrIjoiYWJj"],
  ["sentry-token", "too short", "sntryu_abc"],
  ["linear-api-key", "too short", "lin_api_abc"],
  ["postman-api-key", "too short", "PMAK-abc"],
  ["pulumi-token", "pul- in a word", "pull-request-template"],
  ["onepassword-service-token", "too short", "ops_eyJhbGci"],
  ["newrelic-key", "too short", "NRAK-ABC"],
  ["jwt-unsigned", "a header alone, with a dot", "eyJhbGciOiJub25lIn0."],
  ["database-url-password", "a URL with no password", "DATABASE_URL=postgres://app@db:5432/app"],
  ["database-url-password", "a password from the environment", "DATABASE_URL=postgres://app:${DB_PASSWORD}@db/app"],
  ["database-url-password", "a template", "DATABASE_URL=postgres://app:<password>@db/app"],
  ["basic-auth-url", "a host and port", "https://example.com:8443/path"],
  ["basic-auth-url", "an ssh remote", "git@github.com:org/repo.git"],
  ["artifactory-api-key", "AKCp one character short", `AKCp${rand(ALPHA.alnum, 68)}`],
  ["artifactory-reference-token", "cut short", `X=cmVmdGtu${rand(ALPHA.alnum, 20)}`],
  ["tailscale-key", "not a key kind Tailscale issues", `tskey-foo-${rand(ALPHA.alnum, 12)}-${rand(ALPHA.alnum, 30)}`],
  ["notion-token", "secret_ inside a longer name", `client_secret_${rand(ALPHA.alnum, 43)}`],
  ["notion-token", "one case and no digit", `N=secret_${"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopq"}`],
  ["mailchimp-api-key", "no data center digits", `MC=${rand(ALPHA.hex, 32)}-us`],
  ["aws-bedrock-api-key", "ABSK without the BedrockAPIKey body", `X=ABSK${rand(ALPHA.b64, 100)}`],
  ["vercel-token", "24 characters with no vercel name", `BUILD_ID=${rand(ALPHA.alnum, 24)}`],
  ["square-token", "an application id (sq0idp-, public)", `app_id: sq0idp-${rand(ALPHA.url64, 22)}`],
  ["npm-token-legacy", "a UUID with no npm name", `request_id=${[8, 4, 4, 4, 12].map((n) => rand(ALPHA.hex, n)).join("-")}`],
  ["ansible-vault-plaintext", "an encrypted body", "db_password: !vault $ANSIBLE_VAULT;1.1;AES256"],
  ["ansible-vault-plaintext", "the tag opening a block", "db_password: !vault |"],
  ["generic-secret", "a tokenizer name", "TOKENIZER=Qwen/Qwen3-8B-Instruct"],
  ["generic-secret", "a token count", "MAX_NUM_BATCHED_TOKENS=8192"],
  ["generic-secret", "a secret's file path", "DB_PASSWORD_FILE=/run/secrets/db_password"],
  ["generic-secret", "a token endpoint", "TOKEN_URL=https://auth.example.com/oauth/token"],
  ["generic-secret", "a code identifier", "password = getPasswordFromVault()"],
  ["generic-secret", "a dotted name", "token: settings.auth.github.token_value"],
  ["generic-secret", "a word", "PASSWORD=Password"],
  ["generic-secret", "an enum member", "kind = SyntaxKind.EndOfFileToken"],
  ["generic-secret", "a passthrough flag", "PASSTHROUGH_MODE=Xk9mQ2vL8zPq7w"],
];

describe("every detector has rows", () => {
  test("a true positive and a false positive for each detector (the first release's rows are in detectors.test.ts)", () => {
    const tp = new Set(TRUE_POSITIVES.map((r) => r[0]));
    const fp = new Set(FALSE_POSITIVES.map((r) => r[0]));
    // The detectors of the first release keep their rows in detectors.test.ts.
    const older = [
      "aws-secret-access-key",
      "github-token",
      "github-pat",
      "gitlab-token",
      "slack-token",
      "private-key",
      "anthropic-api-key",
      "openai-api-key",
      "aws-access-key-id",
      "jwt",
    ];
    for (const d of set.detectors) {
      if (d.id === "gcp-service-account" || d.id === "private-key" || d.id === "aws-secret-access-key") continue; // multi-line: rows below / in detectors.test.ts
      expect(tp.has(d.id), `${d.id} has a true-positive row`).toBe(true);
      if (!older.includes(d.id)) expect(fp.has(d.id), `${d.id} has a false-positive row`).toBe(true);
    }
  });
});

describe("true positives", () => {
  test.each(TRUE_POSITIVES)("%s in %j", (detector, text, value) => {
    const f = found(text);
    expect(f.map((x) => x.rule)).toEqual([`secret/${detector}`]);
    if (value) expect(f[0]?.value).toBe(value);
    expect(set.detectors.find((d) => d.id === detector)?.severity).toBe("error");
  });
});

describe("false positives", () => {
  test.each(FALSE_POSITIVES)("%s: %s", (_detector, _why, text) => {
    expect(found(text)).toEqual([]);
  });
});

describe("GCP service-account JSON", () => {
  const body = rand(ALPHA.b64, 200);
  const json = (type: string): string =>
    [
      `{`,
      `  "type": "${type}",`,
      `  "project_id": "fleet",`,
      `  "private_key_id": "${rand(ALPHA.hex, 40)}",`,
      `  "private_key": "-----BEGIN PRIVATE KEY-----\\n${body}\\n-----END PRIVATE KEY-----\\n",`,
      `  "client_email": "svc@fleet.iam.gserviceaccount.com"`,
      `}`,
    ].join("\n");
  test.each([
    ["a service-account file", json("service_account"), ["secret/gcp-service-account"]],
    ["the same key in another JSON is a private key block", json("authorized_user"), ["secret/private-key"]],
  ])("%s", (_why, text, rules) => {
    const f = scanLines(numberLines(text), set);
    expect(f.map((m) => m.detector.rule)).toEqual(rules);
    expect(f[0]?.value).toBe(body);
    expect(f[0]?.line).toBe(5);
  });
});
