// Writes value fixes into a file's text, pure: the line the finding names when it still sets the key,
// else the last line that does (the last setting wins, for env keys and flags alike), else a new
// `KEY=value` line at the end of an env file. Quotes and the line ending are kept as written.
import type { ValueFix } from "../model/value-fix.js";
import { addToYamlCommand } from "./yaml-command.js";

export interface AppliedFix {
  fix: ValueFix;
  /** The 1-based line written (a new line's number when the key was added). */
  line: number;
  /** The value as the file had it; null when the line was added. */
  from: string | null;
  to: string;
  /** Where the old value's text sat on the line (0-based column, width) and the text written there; absent when the line was added. */
  span?: { column: number; width: number; written: string };
}

export interface FailedFix {
  fix: ValueFix;
  why: string;
}

export interface FileEdit {
  text: string;
  applied: AppliedFix[];
  failed: FailedFix[];
}

const TOKEN = String.raw`'[^']*'|"(?:[^"\\]|\\.)*"|[^\s"'#,}\]]+`;

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Where a key's value sits on one line: `KEY=v` (env line, lineinfile line), `KEY: v` (YAML env map), `--flag v` / `--flag=v`. */
function pattern(key: string): RegExp {
  const k = escapeRe(key);
  // `--flag value`, `--flag=value`, and a YAML flow list's `"--flag", "value"`.
  if (key.startsWith("-")) return new RegExp(String.raw`(^|[\s"'\[,=])(${k})(=|\s+|["']\s*,\s*)(${TOKEN})`, "g");
  return new RegExp(String.raw`(^|[^A-Za-z0-9_-])((?:export\s+)?${k}\s*(?:=|:\s+)\s*)(${TOKEN})?`, "g");
}

/** The value written in the old value's quoting: `'v'`, `"v"`, or bare. */
function requote(old: string, value: string): string {
  if (old.startsWith("'")) return `'${value}'`;
  if (old.startsWith('"')) return `"${value}"`;
  return value;
}

/** A plain YAML scalar that YAML 1.1 or 1.2 reads as a number, a boolean or null rather than a string. */
const YAML_NOT_STRING =
  /^(?:[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?|0x[0-9a-fA-F]+|0o[0-7]+|[-+]?\.inf|\.nan|true|false|yes|no|on|off|y|n|null|~)$/i;

/**
 * An item of an argv list (a compose `command:`, a container's `args`): every item must stay a string
 * (compose's schema and Kubernetes refuse a number there), so a bare `6G` becomes `"8053063680"`, not
 * the number `8053063680`. A bare item that was already a number keeps its form.
 */
function requoteItem(old: string, value: string): string {
  const bare = !old.startsWith("'") && !old.startsWith('"');
  return bare && !YAML_NOT_STRING.test(old) && YAML_NOT_STRING.test(value) ? `"${value}"` : requote(old, value);
}

function unquote(token: string): string {
  return /^(['"]).*\1$/s.test(token) ? token.slice(1, -1) : token;
}

/** A value written through a variable (`{{ coder_ctx }}`, `${CTX}`, a container's `$(CTX)`): the number lives where the variable is set. */
const TEMPLATED = /\{\{|\{%|\$[{(]?[A-Za-z_]/;

/** Replaces the key's last value on the line; null when the line does not set the key; `templated` when its value is a variable. */
function editLine(
  line: string,
  key: string,
  value: string,
): { line: string; from: string; span: { column: number; width: number; written: string } } | "templated" | null {
  const re = pattern(key);
  let last: RegExpExecArray | null = null;
  for (let m = re.exec(line); m; m = re.exec(line)) {
    last = m;
    if (m[0] === "") re.lastIndex++;
  }
  if (!last) return null;
  const flag = key.startsWith("-");
  const old = (flag ? last[4] : last[3]) ?? "";
  if (TEMPLATED.test(old) || TEMPLATED.test(line.slice(last.index + last[0].length, last.index + last[0].length + 3))) return "templated";
  const head = flag ? `${last[1]}${last[2]}${last[3]}` : `${last[1]}${last[2]}`;
  const start = last.index;
  const end = start + last[0].length;
  // A flag inside a double-quoted env value (SERVE_ARGS="… --override-generation-config '{\"k\":1}'"):
  // its double quotes and backslashes are written escaped, as the env value needs them.
  const inDouble = flag && (line.slice(0, start + (last[1] ?? "").length).match(/(?<!\\)"/g) ?? []).length % 2 === 1;
  const written = inDouble ? value.replace(/[\\"]/g, "\\$&") : value;
  const was = unquote(old);
  // `"--flag", value` in a YAML flow list: an argv item, which must stay a string.
  const token = flag && (last[3] ?? "").includes(",") ? requoteItem(old, written) : requote(old, written);
  return {
    line: line.slice(0, start) + head + token + line.slice(end),
    from: inDouble ? was.replace(/\\([\\"])/g, "$1") : was,
    span: { column: start + head.length, width: old.length, written: token },
  };
}

/** A file's text split into lines and the endings between them (CRLF, LF and CR-only files kept). */
export function splitKeep(text: string): { lines: string[]; ends: string[] } {
  const parts = text.split(/(\r\n|\n|\r)/);
  const lines: string[] = [];
  const ends: string[] = [];
  for (let i = 0; i < parts.length; i += 2) {
    lines.push(parts[i] ?? "");
    ends.push(parts[i + 1] ?? "");
  }
  return { lines, ends };
}

function isComment(line: string): boolean {
  return /^\s*#/.test(line);
}

/**
 * Appends ` --flag value` inside the value of `fix.into` (`VLLM_EXTRA_ARGS="…"`): on the fix's line
 * when it sets that key, else the last line that does. The value keeps its quoting; a bare one-word
 * value is given double quotes. Null when no line sets the key.
 */
function addIntoValue(
  lines: string[],
  fix: ValueFix,
  eol = "\n",
): { line: number; span: { column: number; width: number; written: string } } | null {
  const key = fix.into as string;
  if (key === "ExecStart") return addToExecStart(lines, fix);
  if (key === "command") return fix.line === null ? null : addToYamlCommand(lines, fix.line, fix.key, fix.value, eol);
  const order = [...(fix.line !== null ? [fix.line - 1] : []), ...lines.map((_, i) => lines.length - 1 - i)];
  for (const i of order) {
    const src = lines[i];
    if (src === undefined || isComment(src)) continue;
    const m = new RegExp(String.raw`^(\s*(?:export\s+)?${escapeRe(key)}\s*=\s*)(${TOKEN})?`).exec(src);
    if (!m) continue;
    const old = m[2] ?? "";
    const inner = unquote(old);
    const quote = old.startsWith("'") ? "'" : '"';
    const value = quote === '"' ? fix.value.replace(/[\\"$`]/g, "\\$&") : fix.value;
    const written = `${quote}${inner}${inner === "" ? "" : " "}${fix.key} ${value}${quote}`;
    const column = (m[1] ?? "").length;
    lines[i] = src.slice(0, column) + written + src.slice(column + old.length);
    return { line: i + 1, span: { column, width: old.length, written } };
  }
  return null;
}

function secretRefusal(path: string, line: number, key: string): string {
  return (
    `${path}:${line} holds a value the secret detectors match: kvgate does not rewrite a ` +
    `line holding a secret; set ${key} there by hand (and move the secret out of the file)`
  );
}

/** The line addIntoValue would edit, when it holds a secret (1-based), else 0. */
function intoLineHolding(lines: readonly string[], fix: ValueFix, holdsSecret: (line: string) => boolean): number {
  const copy = [...lines];
  const at = addIntoValue(copy, fix);
  return at && holdsSecret(lines[at.line - 1] ?? "") ? at.line : 0;
}

/** A systemd unit's ExecStart: the flag goes at the end of the command, after its last continued line. */
function addToExecStart(lines: string[], fix: ValueFix): { line: number; span: { column: number; width: number; written: string } } | null {
  const starts = lines.flatMap((l, i) => (/^\s*ExecStart\s*=/.test(l) ? [i] : []));
  const first = fix.line !== null && starts.includes(fix.line - 1) ? fix.line - 1 : starts[starts.length - 1];
  if (first === undefined) return null;
  let i = first;
  while (/\\\s*$/.test(lines[i] ?? "") && i + 1 < lines.length) i++;
  const src = (lines[i] ?? "").replace(/\s+$/, "");
  // Shell words: a value with quotes, spaces or shell characters is single-quoted (JSON included).
  const value = /^[A-Za-z0-9_./:=,+-]+$/.test(fix.value) ? fix.value : `'${fix.value.replace(/'/g, "'\\''")}'`;
  const written = ` ${fix.key} ${value}`;
  lines[i] = src + written;
  return { line: i + 1, span: { column: src.length, width: 0, written } };
}

/**
 * A flag alone on a YAML block list item (`- --max-model-len`) takes its value from the next item
 * (`- "32768"`), as a Kubernetes `args` list or a chart's `extraArgs` writes it: that item's token.
 */
function editNextItem(
  lines: string[],
  i: number,
  key: string,
  value: string,
): { at: number; line: string; from: string; span: { column: number; width: number; written: string } } | "templated" | null {
  const k = escapeRe(key);
  if (!key.startsWith("-") || !new RegExp(String.raw`^\s*-\s+(["']?)${k}\1\s*(#.*)?$`).test(lines[i] ?? "")) return null;
  let j = i + 1;
  while (j < lines.length && (/^\s*$/.test(lines[j] as string) || isComment(lines[j] as string))) j++;
  const m = new RegExp(String.raw`^(\s*-\s+)(${TOKEN})`).exec(lines[j] ?? "");
  if (!m) return null;
  const old = m[2] as string;
  if (TEMPLATED.test(old)) return "templated";
  const column = (m[1] as string).length;
  const token = requoteItem(old, value);
  const line = lines[j] as string;
  return {
    at: j,
    line: line.slice(0, column) + token + line.slice(column + old.length),
    from: unquote(old),
    span: { column, width: old.length, written: token },
  };
}

/**
 * `holdsSecret`: a line it is true of is never rewritten (docs/cli.md#fix): the fix is refused and
 * says why, so a token on the line is neither printed back nor written masked into the file.
 */
export function applyFixes(text: string, path: string, fixes: readonly ValueFix[], holdsSecret?: (line: string) => boolean): FileEdit {
  const { lines, ends } = splitKeep(text);
  const applied: AppliedFix[] = [];
  const failed: FailedFix[] = [];
  for (const fix of fixes) {
    let templated = false;
    let secretAt = 0;
    const tryAt = (i: number): boolean => {
      const src = lines[i];
      if (src === undefined || isComment(src)) return false;
      const r = editLine(src, fix.key, fix.value);
      if (r === "templated") {
        templated = true;
        return true;
      }
      if (!r) {
        const next = editNextItem(lines, i, fix.key, fix.value);
        if (next === "templated") templated = true;
        if (next === null || next === "templated") return next === "templated";
        if (holdsSecret?.(lines[next.at] as string)) {
          secretAt = next.at + 1;
          return true;
        }
        lines[next.at] = next.line;
        applied.push({ fix, line: next.at + 1, from: next.from, to: fix.value, span: next.span });
        return true;
      }
      if (holdsSecret?.(src)) {
        secretAt = i + 1;
        return true;
      }
      lines[i] = r.line;
      applied.push({ fix, line: i + 1, from: r.from, to: fix.value, span: r.span });
      return true;
    };
    let done = fix.line !== null && tryAt(fix.line - 1);
    // A flag for one container's command is added to that command: another service of the same compose
    // file that sets the flag is not this seat's line (the last-line rule is for one seat's env file).
    for (let i = lines.length - 1; i >= 0 && !done && fix.into !== "command"; i--) done = tryAt(i);
    if (secretAt > 0) {
      failed.push({ fix, why: secretRefusal(path, secretAt, fix.key) });
      continue;
    }
    if (!done && fix.into !== undefined) {
      // A flag the file does not set: added at the end of the value that holds its other flags.
      const held = holdsSecret ? intoLineHolding(lines, fix, holdsSecret) : 0;
      if (held > 0) {
        failed.push({ fix, why: secretRefusal(path, held, fix.key) });
        continue;
      }
      const at = addIntoValue(lines, fix, ends.find((e) => e !== "") ?? "\n");
      if (at) {
        applied.push({ fix, line: at.line, from: null, to: fix.value, span: at.span });
        continue;
      }
    }
    if (templated) {
      failed.push({ fix, why: `${path} sets ${fix.key} through a variable: set ${fix.value} where the variable is defined` });
      continue;
    }
    if (done) continue;
    if (!fix.key.startsWith("-") && path.endsWith(".env")) {
      // A new KEY=value line at the end, after the last line's ending (added when the file has none).
      const eol = ends.find((e) => e !== "") ?? "\n";
      if (lines[lines.length - 1] === "") {
        lines[lines.length - 1] = `${fix.key}=${fix.value}`;
        ends[ends.length - 1] = eol;
        lines.push("");
        ends.push("");
      } else {
        ends[ends.length - 1] = eol;
        lines.push(`${fix.key}=${fix.value}`);
        ends.push(eol);
      }
      applied.push({ fix, line: lines[lines.length - 1] === "" ? lines.length - 1 : lines.length, from: null, to: fix.value });
      continue;
    }
    failed.push({ fix, why: `${path} does not set ${fix.key} any more` });
  }
  return { text: lines.map((l, i) => l + (ends[i] ?? "")).join(""), applied, failed };
}
