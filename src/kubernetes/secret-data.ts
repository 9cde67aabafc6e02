// What a Kubernetes Secret hides in plain sight: its `data` values are base64 of the secret, so the
// line scan sees only the encoding. Each value decoded (and a `.dockerconfigjson` or `.dockercfg`
// pull secret's `auth` decoded again: base64 of `user:password`), for the secret scan to read as
// text at the manifest line (docs/kubernetes.md). `stringData` is plain text already: the line scan
// reads it as written.
import { parseYamlDocs } from "./yaml.js";
import { entriesOf, get, textOf } from "./tree.js";

export interface SecretValue {
  /** The manifest line the value is written on (its key's). */
  line: number;
  /** The lines the encoded value spans (a block scalar's run on after its key). */
  lines: [number, number];
  /** 1-based column where the encoded value starts on that line (1 when not found: a block scalar). */
  column: number;
  /** `data.<key>`, and `auths.<registry>.auth` for a pull secret's credentials. */
  where: string;
  /** The decoded text. */
  text: string;
}

const SECRET_KIND = /\bkind\s*:\s*["']?Secret\b/;
const BASE64 = /^[A-Za-z0-9+/\s]*={0,2}\s*$/;

/** Base64 to UTF-8 text; null for what is not base64 or not text (a keystore, a binary). */
function decodeText(encoded: string): string | null {
  if (!BASE64.test(encoded)) return null;
  const bytes = Buffer.from(encoded.replace(/\s+/g, ""), "base64");
  const text = bytes.toString("utf8");

  return text.includes("\uFFFD") || /[\u0000-\u0008\u000E-\u001F]/.test(text) ? null : text;
}

/** A pull secret's `auths.<registry>.auth`, decoded: `user:token`. */
function pullSecretAuths(json: string): { where: string; text: string }[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return [];
  }
  const root = parsed as { auths?: Record<string, { auth?: unknown }> } & Record<string, { auth?: unknown }>;
  const auths = root.auths ?? root;
  const out: { where: string; text: string }[] = [];
  if (typeof auths !== "object" || auths === null) return out;
  for (const [registry, entry] of Object.entries(auths)) {
    const auth = typeof entry === "object" && entry !== null ? entry.auth : undefined;
    const text = typeof auth === "string" ? decodeText(auth) : null;
    if (text) out.push({ where: `auths.${registry}.auth`, text });
  }
  return out;
}

/** The decoded values of every Secret's `data` in a YAML (or JSON) file; [] when it holds no Secret. */
export function secretValuesOf(path: string, text: string): SecretValue[] {
  if (!SECRET_KIND.test(text)) return [];
  const lines = text.split(/\r\n|\n|\r/);
  const out: SecretValue[] = [];
  for (const doc of parseYamlDocs(path, text).docs) {
    if (textOf(get(doc.tree ?? undefined, "kind")) !== "Secret") continue;
    for (const [key, e] of entriesOf(get(doc.tree ?? undefined, "data"))) {
      const encoded = textOf(e.value);
      const decoded = encoded === null ? null : decodeText(encoded);
      if (encoded === null || decoded === null) continue;
      const at = (lines[e.keyPos.line - 1] ?? "").indexOf(encoded.trim().slice(0, 16));
      const column = at >= 0 ? at + 1 : 1;
      const first = e.value.t === "str" && e.value.block ? e.value.pos.line + 1 : e.value.pos.line;
      const span: [number, number] = [e.keyPos.line, first + Math.max(0, encoded.trim().split("\n").length - 1)];
      out.push({ line: e.keyPos.line, lines: span, column, where: `data.${key}`, text: decoded });
      if (key === ".dockerconfigjson" || key === ".dockercfg")
        for (const a of pullSecretAuths(decoded))
          out.push({ line: e.keyPos.line, lines: span, column, where: `data.${key} ${a.where}`, text: a.text });
    }
  }
  return out;
}
