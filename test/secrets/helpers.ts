// Builders for the secrets tests: real-shaped keys assembled at run time (so no scanner flags this
// repository), added files, and rule-tester cases of a staged change.
import type { ChangedFile } from "../../src/git/types.js";
import type { FleetState } from "../../src/model/types.js";
import { numberLines } from "../../src/secrets/scan.js";
import { policyFrom } from "../helpers/fixture-source.js";
import { runCase, type Actual, type Case } from "../helpers/rule-tester.js";
import { secretScan } from "../../src/checks/secret-scan.js";
import type { Finding } from "../../src/model/types.js";

const j = (...parts: string[]): string => parts.join("");

/** Real-shaped, made-up values. Never real credentials; assembled so the source holds none whole. */
export const FAKE = {
  // The 16 characters after the prefix are base32 ([A-Z2-7]), as AWS issues them.
  awsId: j("AKIA", "Q3VZ7MXK2PLR6TBN"),
  awsId2: j("ASIA", "W5N4KD2LQ7ZP3MXC"),
  awsSecret: j("Zq8r/N3vLk2", "Xw9+TbY4mPf7", "sA1dGhJ6uEo0", "RcVi5"),
  ghp: j("ghp_", "a8Kz3Qm1Xv7Ln2Rt9Yp4Wc6Bd0Fh5Js8Ge3U"),
  githubPat: j("github_pat_", "11ABCDEFG0aZ9kLmN3pQrS_", "x7YtUvWb2Cd4Ef6Gh8Ij0Kl2Mn4Op6Qr8St0Uv2Wx4Yz6Ab8Cd0Ef2Gh4Ij6Kl8Mn0"),
  glpat: j("glpat-", "Xk3mZ9qLp2Rv7Tn4Wb8Y"),
  slack: j("xoxb-", "123456789012-", "1234567890123-", "AbCdEfGhIjKlMnOpQrStUvWx"),
  // OpenAI keys carry T3BlbkFJ between their halves; Anthropic's are api03- + 93 + AA.
  openai: j("sk-", "proj-", "Tq7Lm2Xz9Kp4Rv8Wn3Yb6Hc1Jd5Fg0Se2Ua7Ik", "T3BlbkFJ", "Wq8Rt5Yu2Io9Pa6Sd3Fg0Hj7Kl4Zx1Cv8Bn5M"),
  openaiLegacy: j("sk-", "Ab3Cd5Ef7Gh9Ij1Kl3Mn", "T3BlbkFJ", "5Op7Qr9St1Uv3Wx5Yz7q"),
  anthropic: j(
    "sk-ant-",
    "api03-",
    "Zx9Cv8Bn7Mq6Wl5Ek4Rj3Th2Yg1Uf0IdOsPaLkJhGf-AbCdEf",
    "Qw7Er4Ty1Ui8Op5As2Df9Gh6Jk3Lz0Xc7Vb4Nm1_Po8I",
    "AA",
  ),
  hf: j("hf_", "QwErTyUiOpAsDfGhJkLzXcVbNm1234Ab"),
  google: j("AIza", "SyA1b2C3d4E5f6G7h8I9j0K_L-mNoPqRsTu"),
  stripe: j("sk_live_", "51HqLm2Xz9Kp4Rv8Wn3Yb6Hc"),
  jwt: j(
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9",
    ".",
    "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ",
    ".",
    "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
  ),
  generic: j("Tr0ub4dor", "&3xK9mQz", "!Lp2"),
  privateKeyBody: j(
    "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7",
    "VJTUt9Us8cKjMzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu",
  ),
};

/** A Kubernetes pull secret (type kubernetes.io/dockerconfigjson) holding `config` in base64, at line 7. */
export function pullSecret(config: object): string {
  const b64 = Buffer.from(JSON.stringify(config)).toString("base64");
  return [
    "apiVersion: v1",
    "kind: Secret",
    "type: kubernetes.io/dockerconfigjson",
    "metadata:",
    "  name: ghcr-pull",
    "data:",
    `  .dockerconfigjson: ${b64}`,
    "",
  ].join("\n");
}

export function addedFile(path: string, text: string, extra: Partial<ChangedFile> = {}): ChangedFile {
  const lines = numberLines(text);
  return {
    path,
    oldPath: null,
    status: "added",
    before: null,
    after: text,
    binary: false,
    size: Buffer.byteLength(text),
    addedLines: lines,
    ...extra,
  };
}

export interface CaseOptions {
  env?: Record<string, string>;
  values?: string[];
  patterns?: string[];
  exclude?: string[];
  override?: string;
}

/** A rule-tester case: a staged change adding these files, under kvgate.yaml's secrets settings. */
export function secretCase(name: string, files: ChangedFile[], o: CaseOptions = {}): Case {
  // Only what the case sets: the kvgate.yaml a rule page shows for it holds nothing else.
  const secrets = {
    ...(o.values || o.patterns ? { placeholders: { values: o.values ?? [], patterns: o.patterns ?? [] } } : {}),
    ...(o.override === undefined ? {} : { override: o.override }),
    ...(o.exclude === undefined ? {} : { exclude: o.exclude }),
  };
  const policy = policyFrom(Object.keys(secrets).length === 0 ? {} : { secrets });
  const fleet: FleetState = { services: [], tenants: [], cards: [], ledgerFacts: {}, paths: files.map((f) => f.path) };
  return { name, fleet, before: null, kind: "staged", changed: files, policy, env: o.env ?? {} };
}

/**
 * The secret check over added files, through the real pipeline: each finding as the user sees it,
 * plus the raw value the check matched (`secret`, which no output carries) for assertions.
 */
export async function scan(files: ChangedFile[], o: CaseOptions = {}): Promise<Actual[]> {
  return runCase(secretCase("scan", files, o), [secretScan]);
}

/** A finding as every output shows it: the raw value dropped. */
export function shown(a: Actual): Finding {
  const { messageId: _id, secret: _secret, ...f } = a;
  return f;
}

/** A line of filler for big files: no keyword of any detector. */
export const filler = (i: number): string => `# row ${i}: seat card ledger pool setting=${i % 977} note=batch-${i % 31}`;
/** A private key block, its body split over two lines. */
export const pem = (body: string): string[] => [
  "-----BEGIN PRIVATE KEY-----",
  body.slice(0, 64),
  body.slice(64),
  "-----END PRIVATE KEY-----",
];

/** A text of `lines` filler lines, with the planted ones (1-based line → text) in place. */
export function bigText(lines: number, plant: Map<number, string>): string {
  const out: string[] = [];
  for (let i = 1; i <= lines; i++) out.push(plant.get(i) ?? filler(i));
  return `${out.join("\n")}\n`;
}
