// The texts the detectors read for one line besides the line itself: the line with JSON's `\/`
// unescaped; the line joined to the line before when that one opens a value this line holds; and what
// a Kubernetes pull secret or a docker config hides in base64. Each maps its offsets back to a column
// of the line, so a finding points at the line as written. Pure string work, shared by the scan and the
// hook's fast path (which must not pass a line the scan would refuse).

export interface ScanUnit {
  text: string;
  /** 0-based column in the line of an offset in `text`; -1 when the offset is not on the line. */
  column(offset: number): number;
  /** How the value was read, for the message; null for the line as written. */
  via: string | null;
  /** The text put before the line (a name from the line before): only detectors it gives a keyword read it. */
  prefix?: string;
}

/** The line itself. */
export function lineUnit(text: string): ScanUnit {
  return { text, column: (o) => o, via: null };
}

/** JSON writers that escape `/` (PHP's json_encode) split a base64 key at every slash. */
export function unescapedUnit(text: string): ScanUnit | null {
  if (!text.includes("\\/")) return null;
  const map: number[] = [];
  let out = "";
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "\\" && text[i + 1] === "/") i++;
    map.push(i);
    out += text[i];
  }
  return { text: out, column: (o) => map[o] ?? text.length, via: null };
}

const NAME = String.raw`[A-Za-z_$][\w.$-]{0,63}`;
/** `<password>` (attributes allowed) with nothing after it. */
const XML_OPEN = new RegExp(String.raw`<(${NAME})(?:\s[^<>]{0,200})?>\s*$`);
/** `password: |`, `db_password: !vault |`, `key: >-` (a YAML block scalar). */
const YAML_BLOCK = new RegExp(String.raw`(${NAME})["']?\s*:\s*(!vault\s+)?[|>][+-]?[0-9]?\s*$`);
/** A name then an operator that wants a value: `key =`, `KEY:`, `env.KEY ||`, `Key{`, `Key(`. */
const OPERATOR_END = new RegExp(String.raw`(${NAME})["'\x60\]]*\s*(?:=|:=|:|=>|\|\||\?\?|\{|\()\s*$`);
/** A name alone at the end of the line, its `=` on the next (`DEFAULT_ACCOUNT_KEY` / `= "…"`). */
const NAME_END = new RegExp(String.raw`(${NAME})\s*$`);
/** A command-line flag alone as a list item or array element: `- --api-key`, `"--api-key",`. */
const FLAG_ITEM = /^\s*(?:-\s+)?["']?(--?[A-Za-z][\w-]{0,63})["']?\s*,?\s*$/;

function joined(prefix: string, line: string, from: number): ScanUnit {
  const value = line.slice(from);
  return {
    text: prefix + value,
    column: (o) => (o < prefix.length ? -1 : from + o - prefix.length),
    via: "its name is on the line before",
    prefix,
  };
}

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

/** How much of the line before is read for its opener: a name and an operator are short. */
const TAIL = 160;

/**
 * The line read after the line before it, when that one opens a value this line holds. Each opener
 * is tried only when the line before ends in its last character (most lines end in none of them), and
 * only on its tail, so a long line costs no more than a short one.
 */
export function continuedUnit(prev: string, line: string): ScanUnit | null {
  const at = indentOf(line);
  const rest = line.slice(at);
  if (rest === "" || rest.startsWith("#") || rest.startsWith("//")) return null;
  const end = prev.trimEnd();
  const last = end.at(-1) ?? "";
  const tail = end.slice(-TAIL);
  if (last === ">" && !rest.startsWith("<")) {
    const open = XML_OPEN.exec(tail);
    if (open) return joined(`${open[1] ?? ""}: `, line, at);
  }
  if ("|>+-0123456789".includes(last)) {
    const block = YAML_BLOCK.exec(tail);
    if (block) return joined(`${block[1] ?? ""}: ${block[2] ? "!vault " : ""}`, line, at);
  }
  if (end.length <= TAIL && /^(?:-\s+)?["']?[^\s"'-]/.test(rest)) {
    const flag = FLAG_ITEM.exec(end);
    if (flag) return joined(`${flag[1] ?? ""} `, line, at + (/^-\s+/.exec(rest)?.[0].length ?? 0));
  }
  if (/^["'\x60]/.test(rest) && "=:>|?{(".includes(last)) {
    const op = OPERATOR_END.exec(tail);
    if (op) return joined(`${op[1] ?? ""} = `, line, at);
  }
  if (/^(?::=|=(?!=))/.test(rest)) {
    const name = NAME_END.exec(tail);
    if (name) return joined(`${name[1] ?? ""} `, line, at);
  }
  return null;
}

/** Base64 past this is not a credential file. */
const DECODE_MAX = 64 * 1024;
const PULL_SECRET = /\.docker(?:configjson|cfg)["']?\s*:\s*["']?([A-Za-z0-9+/]{16,65536}={0,2})/;
const AUTH_FIELD = /"auth"\s*:\s*"([A-Za-z0-9+/]{8,4096}={0,2})"/g;

/**
 * Words of a line that may hide a credential in base64 (lowercase): the prefilter keeps such a line
 * (src/secrets/prefilter.ts), and decodedUnits reads it decoded.
 */
export const DECODE_WORDS: readonly string[] = ["dockerc", '"auth"'];

function base64Text(b64: string): string | null {
  if (b64.length > DECODE_MAX) return null;
  const text = Buffer.from(b64, "base64").toString("utf8");
  // Not text: not a config (a binary blob decodes to replacement characters and controls).
  return /[\uFFFD\x00-\x08\x0E-\x1F]/.test(text) ? null : text;
}

/** `user:password` of a docker config `auth` value, as a line the generic detector reads. */
function authUnits(text: string, column: (o: number) => number, via: string): ScanUnit[] {
  const out: ScanUnit[] = [];
  for (const m of text.matchAll(AUTH_FIELD)) {
    const pair = base64Text(m[1] ?? "");
    const colon = pair?.indexOf(":") ?? -1;
    if (pair === null || colon < 0) continue;
    const at = column((m.index ?? 0) + m[0].indexOf(m[1] ?? ""));
    out.push({ text: `password=${pair.slice(colon + 1)}`, column: () => at, via });
  }
  return out;
}

/** A pull secret's .dockerconfigjson (or .dockercfg) decoded, and the `auth` pairs in a docker config. */
export function decodedUnits(line: string): ScanUnit[] {
  if (!DECODE_WORDS.some((w) => line.includes(w))) return [];
  const out: ScanUnit[] = authUnits(line, (o) => o, "decoded from the base64 of its auth field");
  const pull = PULL_SECRET.exec(line);
  const b64 = pull?.[1];
  if (pull && b64) {
    const json = base64Text(b64);
    const at = pull.index + pull[0].length - b64.length;
    if (json !== null) {
      const via = "decoded from the base64 of the .dockerconfigjson";
      out.push({ text: json.replace(/\s+/g, " "), column: () => at, via });
      out.push(...authUnits(json, () => at, via));
    }
  }
  return out;
}
