// Real-shaped, made-up values for every detector family, built at run time from a seeded generator
// (so the source holds no whole key and every run sees the same values). Formats follow the vendors'
// documented prefixes, alphabets and lengths.
let state = 0x2545f491;
function next(): number {
  state = (Math.imul(state, 1103515245) + 12345) >>> 0;
  return state / 2 ** 32;
}
export const ALPHA = {
  upper32: "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567",
  alnum: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
  letters: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
  hex: "0123456789abcdef",
  url64: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
  b64: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
  bech32: "qpzry9x8gf2tvdw0s3jn54khce6mua7l".toUpperCase(),
  digits: "0123456789",
};
/** n characters of an alphabet, mixed case guaranteed for the letter alphabets. */
export function rand(alphabet: string, n: number): string {
  for (;;) {
    let s = "";
    for (let i = 0; i < n; i++) s += alphabet[Math.floor(next() * alphabet.length)];
    if (
      !/[a-z]/.test(alphabet) ||
      !/[A-Z]/.test(alphabet) ||
      n < 8 ||
      (/[a-z]/.test(s) && /[A-Z]/.test(s) && /[0-9]/.test(s) === /[0-9]/.test(alphabet))
    )
      return s;
  }
}
const j = (...p: string[]): string => p.join("");
const uuid = (): string => [8, 4, 4, 4, 12].map((n) => rand(ALPHA.hex, n)).join("-");
const b64url = (s: string): string => Buffer.from(s).toString("base64url");

/** One value per detector id. */
export const SAMPLE: Record<string, string> = {
  "aws-access-key-id": j("AKIA", rand(ALPHA.upper32, 16)),
  "github-token": j("ghp", "_", rand(ALPHA.alnum, 36)),
  "github-pat": j("github", "_pat_", rand(ALPHA.alnum, 22), "_", rand(ALPHA.alnum, 59)),
  "gitlab-token": j("glpat", "-", rand(ALPHA.url64, 20)),
  "gitlab-other-token": j("glrt", "-", rand(ALPHA.alnum, 20)),
  "slack-config-token": j("xoxe", ".xoxp-1-", rand(ALPHA.alnum, 163)),
  "slack-app-token": j(
    "xapp",
    "-1-A0",
    rand("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 9),
    "-",
    rand(ALPHA.digits, 13),
    "-",
    rand(ALPHA.hex, 64),
  ),
  "slack-token": j("xoxb", "-", rand(ALPHA.digits, 12), "-", rand(ALPHA.digits, 13), "-", rand(ALPHA.alnum, 24)),
  "slack-webhook": j(
    "T0",
    rand("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 8),
    "/B0",
    rand("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 8),
    "/",
    rand(ALPHA.alnum, 24),
  ),
  "age-secret-key": j("AGE-SECRET", "-KEY-1", rand(ALPHA.bech32, 58)),
  "anthropic-api-key": j("sk-ant", "-api03-", rand(ALPHA.url64, 93), "AA"),
  "openai-api-key": j("sk-", "proj-", rand(ALPHA.url64, 74), "T3Blbk", "FJ", rand(ALPHA.url64, 74)),
  "groq-api-key": j("gsk", "_", rand(ALPHA.alnum, 52)),
  "perplexity-api-key": j("pplx", "-", rand(ALPHA.alnum, 48)),
  "huggingface-token": j("hf", "_", rand(ALPHA.letters, 34)),
  "huggingface-org-token": j("api_org", "_", rand(ALPHA.letters, 34)),
  "google-api-key": j("AIza", "Sy", rand(ALPHA.url64, 33)),
  "stripe-secret-key": j("sk", "_live_", rand(ALPHA.alnum, 24)),
  "npm-token": j("npm", "_", rand(ALPHA.alnum, 36)),
  "pypi-token": j("pypi", "-AgEIcHlwaS5vcmc", rand(ALPHA.url64, 70)),
  "docker-hub-token": j("dckr", "_pat_", rand(ALPHA.url64, 27)),
  "azure-storage-key": j(rand(ALPHA.b64, 86), "=="),
  "azure-ad-client-secret": j(rand(ALPHA.alnum, 3), "8Q~", rand(ALPHA.alnum, 34)),
  "twilio-api-key": j("SK", rand(ALPHA.hex, 32)),
  "twilio-auth-token": rand(ALPHA.hex, 32),
  "sendgrid-api-key": j("SG", ".", rand(ALPHA.url64, 22), ".", rand(ALPHA.url64, 43)),
  "discord-bot-token": j(
    b64url(rand("123456789", 1) + rand(ALPHA.digits, 17)).slice(0, 24),
    ".",
    rand(ALPHA.url64, 6),
    ".",
    rand(ALPHA.url64, 38),
  ),
  "discord-webhook": j(rand(ALPHA.digits, 19), "/", rand(ALPHA.url64, 68)),
  "teams-webhook": j(uuid(), "@", uuid(), "/IncomingWebhook/", rand(ALPHA.hex, 32), "/", uuid()),
  "telegram-bot-token": j(rand(ALPHA.digits, 10), ":AA", rand(ALPHA.url64, 33)),
  "databricks-token": j("dapi", rand(ALPHA.hex, 32)),
  "doppler-token": j("dp", ".pt.", rand(ALPHA.alnum, 43)),
  "shopify-token": j("shpat", "_", rand(ALPHA.hex, 32)),
  "digitalocean-token": j("dop", "_v1_", rand(ALPHA.hex, 64)),
  "terraform-token": j(rand(ALPHA.alnum, 14), ".atlas", "v1.", rand(ALPHA.url64, 67)),
  "vault-token": j("hvs", ".", rand(ALPHA.url64, 91)),
  "vault-token-legacy": j("s.", rand(ALPHA.alnum, 24)),
  "heroku-api-key": j("HRKU", "-AA", rand(ALPHA.url64, 58)),
  "heroku-api-key-legacy": uuid(),
  "grafana-cloud-token": j("glc", "_", rand(ALPHA.b64, 80), "="),
  "grafana-service-account-token": j("glsa", "_", rand(ALPHA.alnum, 32), "_", rand(ALPHA.hex, 8)),
  "grafana-api-key": j("eyJrIjoi", rand(ALPHA.alnum, 72), "=="),
  "sentry-token": j("sntryu", "_", rand(ALPHA.hex, 64)),
  "linear-api-key": j("lin", "_api_", rand(ALPHA.alnum, 40)),
  "postman-api-key": j("PMAK", "-", rand(ALPHA.hex, 24), "-", rand(ALPHA.hex, 34)),
  "pulumi-token": j("pul", "-", rand(ALPHA.hex, 40)),
  "onepassword-service-token": j("ops", "_eyJ", rand(ALPHA.b64, 300)),
  "newrelic-key": j("NRAK", "-", rand("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 27)),
  jwt: j(
    b64url('{"alg":"HS256","typ":"JWT"}'),
    ".",
    b64url(`{"sub":"${rand(ALPHA.alnum, 10)}","iat":1760000000}`),
    ".",
    rand(ALPHA.url64, 43),
  ),
  "jwt-unsigned": j(b64url('{"alg":"none","typ":"JWT"}'), ".", b64url(`{"sub":"${rand(ALPHA.alnum, 10)}","admin":true}`), "."),
  "artifactory-api-key": j("AKC", "p", rand(ALPHA.alnum, 69)),
  "artifactory-reference-token": j("cmVmdGtu", "OjAxOj", rand(ALPHA.alnum, 50)),
  "tailscale-key": j("tskey", "-auth-", rand(ALPHA.alnum, 11), "CNTRL-", rand(ALPHA.alnum, 33)),
  "notion-token": j("ntn", "_", rand(ALPHA.digits, 11), rand(ALPHA.alnum, 35)),
  "mailchimp-api-key": j(rand(ALPHA.hex, 32), "-us", "14"),
  "aws-bedrock-api-key": j("ABSK", "QmVkcm9ja0FQSUtleS", rand(ALPHA.b64, 120)),
  "vercel-token": rand(ALPHA.alnum, 24),
  "square-token": j("EAAA", rand(ALPHA.url64, 60)),
  "npm-token-legacy": uuid(),
  "ansible-vault-plaintext": rand(ALPHA.alnum, 20),
  "database-url-password": rand(ALPHA.alnum, 20),
  "basic-auth-url": rand(ALPHA.alnum, 18),
  "generic-secret": j(rand(ALPHA.alnum, 10), "!", rand(ALPHA.alnum, 8)),
};

/** A line that carries a sample of this family the way it appears in files (its name, its URL). */
export const lineFor = (id: string, value: string): string =>
  id === "database-url-password"
    ? `DATABASE_URL=postgres://app:${value}@db/app`
    : id === "basic-auth-url"
      ? `URL=https://u:${value}@h.test/`
      : id === "slack-webhook"
        ? `https://hooks.slack.com/services/${value}`
        : id === "discord-webhook"
          ? `https://discord.com/api/webhooks/${value}`
          : id === "teams-webhook"
            ? `https://a.webhook.office.com/webhookb2/${value}`
            : id === "azure-storage-key"
              ? `AccountKey=${value}`
              : id === "twilio-auth-token"
                ? `TWILIO_AUTH_TOKEN=${value}`
                : id === "heroku-api-key-legacy"
                  ? `HEROKU_API_KEY=${value}`
                  : id === "vault-token-legacy"
                    ? `VAULT_TOKEN=${value}`
                    : id === "vercel-token"
                      ? `VERCEL_TOKEN=${value}`
                      : id === "npm-token-legacy"
                        ? `//registry.npmjs.org/:_authToken=${value}`
                        : id === "ansible-vault-plaintext"
                          ? `db_password: !vault ${value}`
                          : `X=${value}`;
