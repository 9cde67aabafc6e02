// The env file reader of docs/env-files.md. It never throws: a line it cannot read becomes an
// `env/parse` problem with its line number, and the rest of the file still parses.
import { split as shellSplit } from "shlex";
import type { EnvEntry, EnvFlag, ParsedEnv } from "./env-types.js";

const KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Keys whose values are command lines: split with shell-word rules and read as flags. */
export function isFlagKey(key: string): boolean {
  return key === "ARGS" || key === "CMD" || key === "COMMAND" || /_(ARGS|FLAGS|OPTS)$/.test(key);
}

/** `--max_model_len` → `--max-model-len`; short flags (`-tp`) are kept as written. */
function normaliseFlag(name: string): string {
  return name.startsWith("--") ? "--" + name.slice(2).replace(/_/g, "-") : name;
}

export function parseEnv(text: string, file: string): ParsedEnv {
  // Old Mac editors end lines with CR alone: a file with no LF at all reads like its LF twin, not as one
  // long line. In an LF or CRLF file a lone CR stays what the shell sees: part of the value.
  const body = text.replace(/^\uFEFF/, "");
  const lines = body.includes("\n") ? body.split(/\r?\n/) : body.split("\r");
  const out: ParsedEnv = { file, entries: new Map(), all: [], flags: [], positionals: [], problems: [] };
  let i = 0;
  while (i < lines.length) i += parseLine(lines, i, i + 1, out);
  for (const entry of out.all) {
    if (isFlagKey(entry.key)) readFlags(entry, lines, out);
  }
  return out;
}

/** Parses the logical line starting at lines[i]; returns how many physical lines it used. */
function parseLine(lines: string[], i: number, lineNo: number, out: ParsedEnv): number {
  const raw = lines[i] as string;
  const trimmed = raw.trim();
  if (trimmed === "" || trimmed.startsWith("#")) return 1;
  let rest = trimmed;
  let exported = false;
  if (/^export\s+/.test(rest)) {
    exported = true;
    rest = rest.replace(/^export\s+/, "");
  }
  const eq = rest.indexOf("=");
  if (eq <= 0) {
    out.problems.push({ kind: "parse", line: lineNo, message: `line ${lineNo} is not KEY=VALUE: "${clip(trimmed)}"` });
    return 1;
  }
  const key = rest.slice(0, eq);
  if (!KEY.test(key)) {
    out.problems.push({
      kind: "parse",
      line: lineNo,
      message: `"${clip(key)}" is not a valid env key (letters, digits and _; not starting with a digit)`,
    });
    return 1;
  }
  const valueText = rest.slice(eq + 1);
  const first = valueText[0];
  if (first === "'" || first === '"') {
    const r = readQuoted(lines, i, raw.indexOf(valueText, raw.indexOf("=")), first);
    if (!r.ok) {
      out.problems.push({ kind: "parse", line: lineNo, message: r.message, key });
      return r.used;
    }
    addEntry(out, { key, value: r.value, line: lineNo, exported, quoted: true });
    return r.used;
  }
  addEntry(out, { key, value: stripComment(valueText).trim(), line: lineNo, exported, quoted: false });
  return 1;
}

/** An unquoted value ends at `#` that follows whitespace. */
function stripComment(v: string): string {
  const m = /(^|\s)#/.exec(v);
  return m ? v.slice(0, m.index) : v;
}

type Quoted = { ok: true; value: string; used: number } | { ok: false; message: string; used: number };

/** Reads a quoted value that may span several lines (common for long SERVE_ARGS). */
function readQuoted(lines: string[], startLine: number, startCol: number, quote: string): Quoted {
  let value = "";
  let li = startLine;
  let col = startCol + 1;
  for (;;) {
    const line = lines[li] as string;
    while (col < line.length) {
      const ch = line[col] as string;
      if (ch === quote) {
        const tail = line.slice(col + 1).trim();
        if (tail !== "" && !tail.startsWith("#")) {
          return {
            ok: false,
            message: `line ${startLine + 1}: unexpected text after the closing quote: "${clip(tail)}" (put a # before a comment)`,
            used: li - startLine + 1,
          };
        }
        return { ok: true, value, used: li - startLine + 1 };
      }
      if (quote === '"' && ch === "\\" && col + 1 < line.length) {
        const next = line[col + 1] as string;
        const esc: Record<string, string> = { '"': '"', "\\": "\\", n: "\n", $: "$", "`": "`" };
        if (next in esc) {
          value += esc[next];
          col += 2;
          continue;
        }
      }
      value += ch;
      col++;
    }
    li++;
    col = 0;
    if (li >= lines.length) {
      return {
        ok: false,
        message: `line ${startLine + 1}: the ${quote === '"' ? "double" : "single"} quote is never closed; close it on the line where the value ends`,
        used: li - startLine,
      };
    }
    value += "\n";
  }
}

function addEntry(out: ParsedEnv, entry: EnvEntry): void {
  const prev = out.entries.get(entry.key);
  if (prev) {
    out.problems.push({
      kind: "duplicate-key",
      line: entry.line,
      key: entry.key,
      message: `${entry.key} is set twice (lines ${prev.line} and ${entry.line}); the last one wins: delete line ${prev.line} or this one`,
    });
  }
  out.entries.set(entry.key, entry);
  out.all.push(entry);
}

/** The line a word sits on inside a (possibly multi-line) value starting at entry.line. */
function lineOfWord(lines: string[], entry: EnvEntry, word: string, fromLine: number): number {
  const valueLines = entry.value.split("\n").length;
  for (let l = fromLine; l < entry.line + valueLines; l++) {
    if ((lines[l - 1] ?? "").includes(word)) return l;
  }
  return fromLine;
}

function readFlags(entry: EnvEntry, lines: string[], out: ParsedEnv): void {
  let words: string[];
  try {
    words = shellSplit(entry.value.replace(/\\\n/g, " "));
  } catch (e) {
    out.problems.push({
      kind: "parse",
      line: entry.line,
      key: entry.key,
      message: `${entry.key}: cannot split into words (${(e as Error).message}); check the quotes inside the value`,
    });
    return;
  }
  let cursor = entry.line;
  for (let w = 0; w < words.length; w++) {
    const word = words[w] as string;
    const line = lineOfWord(lines, entry, word, cursor);
    cursor = line;
    if (/^-{1,2}[A-Za-z]/.test(word)) {
      const eq = word.indexOf("=");
      let flag: EnvFlag;
      if (word.startsWith("--") && eq > 0) {
        flag = { name: normaliseFlag(word.slice(0, eq)), spelled: word.slice(0, eq), value: word.slice(eq + 1), fromKey: entry.key, line };
      } else {
        const next = words[w + 1];
        const takesValue = next !== undefined && !/^-{1,2}[A-Za-z]/.test(next);
        flag = { name: normaliseFlag(word), spelled: word, value: takesValue ? next : null, fromKey: entry.key, line };
        if (takesValue) w++;
      }
      out.flags.push(flag);
    } else {
      out.positionals.push({ word, fromKey: entry.key, line });
    }
  }
}

function clip(s: string): string {
  return s.length > 60 ? s.slice(0, 57) + "..." : s;
}
