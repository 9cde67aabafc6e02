// JSON Web Tokens by what they decode to: a header that is a JSON object naming its algorithm (RFC
// 7515 and 7519 require `alg`), and whether an HMAC-signed token verifies with one of the signing keys
// documentation publishes (jwt.io's defaults), which makes it a sample anyone can mint.
import { createHmac, timingSafeEqual } from "node:crypto";

function decodeJson(part: string): unknown {
  try {
    return JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
  } catch {
    return null;
  }
}

function headerOf(token: string): Record<string, unknown> | null {
  const h = decodeJson(token.slice(0, token.indexOf(".")));
  return typeof h === "object" && h !== null && !Array.isArray(h) ? (h as Record<string, unknown>) : null;
}

/** The first segment decodes to a JSON object with a string `alg`. */
export function jwtHeaderOk(token: string): boolean {
  return typeof headerOf(token)?.["alg"] === "string";
}

const HMAC: Record<string, string> = { HS256: "sha256", HS384: "sha384", HS512: "sha512" };

/** The published key this HMAC-signed token verifies with, or null. */
export function jwtExampleKey(token: string, keys: readonly string[]): string | null {
  const parts = token.split(".");
  if (parts.length !== 3 || !parts[2]) return null;
  const alg = headerOf(token)?.["alg"];
  const hash = typeof alg === "string" ? HMAC[alg] : undefined;
  if (!hash) return null;
  const signature = Buffer.from(parts[2], "base64url");
  for (const key of keys) {
    const mac = createHmac(hash, key).update(`${parts[0]}.${parts[1]}`).digest();
    if (mac.length === signature.length && timingSafeEqual(mac, signature)) return key;
  }
  return null;
}
