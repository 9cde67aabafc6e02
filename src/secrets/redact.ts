// Redaction: the one place a secret value is turned into something printable. Every output (text,
// JSON, SARIF, annotations, summary, trailers) shows at most the first 4 and last 2 characters, and
// identifies the value by sha256:<12 hex>.
import { createHash } from "node:crypto";

/** Values shorter than this are masked whole: 6 shown characters would give most of them away. */
const SHOW_FROM_LENGTH = 12;

export function redactSecret(value: string): string {
  if (value.length < SHOW_FROM_LENGTH) return "*".repeat(Math.max(4, Math.min(value.length, 8)));
  return `${value.slice(0, 4)}…${value.slice(-2)}`;
}

export function secretFingerprint(value: string): string {
  return `sha256:${createHash("sha256").update(value, "utf8").digest("hex").slice(0, 12)}`;
}

/** Replaces every occurrence of each raw secret in `text` by its redacted form (longest first). */
export function scrubText(text: string, secrets: readonly string[]): string {
  const list = [...new Set(secrets.filter((s) => s.length > 0))].sort((a, b) => b.length - a.length);
  let out = text;
  for (const s of list) if (out.includes(s)) out = out.split(s).join(redactSecret(s));
  return out;
}

/** scrubText over every string inside a JSON-like value (a finding's data), returning a copy. */
export function scrubData<T>(value: T, secrets: readonly string[]): T {
  if (secrets.length === 0) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return scrubText(v, secrets);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === "object") {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[scrubText(k, secrets)] = walk(x);
      return out;
    }
    return v;
  };
  return walk(value) as T;
}

/**
 * The pipeline's redaction step for one finding whose report carried `secret`: message, reason and
 * data scrubbed, the fingerprint replaced by the value's. Generic over the finding shape so the engine
 * can call it before or after it builds the final Finding.
 */
export function redactFinding<F extends { message: string; data: Record<string, unknown>; fingerprint: string; reason?: string }>(
  finding: F,
  secret: string,
): F {
  const secrets = [secret];
  const out: F = {
    ...finding,
    message: scrubText(finding.message, secrets),
    data: scrubData(finding.data, secrets),
    fingerprint: secretFingerprint(secret),
  };
  if (finding.reason !== undefined) out.reason = scrubText(finding.reason, secrets);
  return out;
}
