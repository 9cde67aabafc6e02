// What a rendered file deploys (docs/playbooks.md#templates): an env file's KEY=VALUE lines, or a
// systemd unit's Environment= and ExecStart (read by src/systemd/, as a committed unit is), as edits
// at the template's lines. A value that one variable wrote points at that variable (`from`), and so
// does a flag value inside a command string (`flagFrom`): the finding and the fix go where the value
// is written. A line kvgate could not render is skipped and reported with its service and key.
import { split as shellSplit } from "shlex";
import { isFlagKey, parseEnv } from "../parse/env.js";
import type { OutLine } from "./jinja.js";
import type { EnvEdit, FlagFrom, PlaybookProblem, UnitReader, VarRef } from "./records.js";
import { unresolvedMessage } from "./problems.js";

export interface FileDeploy {
  service: string;
  edits: EnvEdit[];
  problems: PlaybookProblem[];
  /** Files of the repository the rendered file loads (a unit's EnvironmentFile=). */
  files: string[];
}

/** `lines` as env text: each entry at its template line, with the variables that wrote it. */
export function envFileDeploy(lines: readonly OutLine[], file: string, service: string): FileDeploy {
  const parsed = parseEnv(lines.map((l) => l.text).join("\n"), file);
  const out: FileDeploy = { service, edits: [], problems: [], files: [] };
  const starts = parsed.all.map((e) => e.line);
  parsed.all.forEach((e, i) => {
    const span = lines.slice(e.line - 1, Math.max(e.line, starts[i + 1] ?? e.line + 1) - 1);
    const first = lines[e.line - 1];
    if (!first) return;
    const unsure = span.find((l) => l.unsure)?.unsure;
    if (unsure) {
      out.problems.push({
        kind: "unresolved",
        file,
        line: first.src,
        message: unresolvedMessage(`${e.key} for ${service}`, unsure.expr, unsure.reason),
        service,
        key: e.key,
      });
      return;
    }
    out.edits.push({ kind: "set", key: e.key, value: e.value, line: first.src, file, ...attribution(span, e.key, e.value) });
  });
  // A line kvgate could not render that holds no KEY=VALUE it can name may set anything.
  const named = new Set(parsed.all.map((e) => e.line));
  lines.forEach((l, i) => {
    if (
      !l.unsure ||
      named.has(i + 1) ||
      /^\s*(#|$)/.test(l.text) ||
      parsed.all.some((e, j) => e.line <= i + 1 && (starts[j + 1] ?? Infinity) > i + 1)
    )
      return;
    out.problems.push({
      kind: "unresolved",
      file,
      line: l.src,
      message: unresolvedMessage(`a line of ${service}'s env file`, l.unsure.expr, l.unsure.reason),
      service,
      key: "COMMAND",
    });
  });
  return out;
}

/** `lines` as a systemd unit named `unit`: what src/systemd/read.ts reads of it, at the template's lines. */
export function unitFileDeploy(lines: readonly OutLine[], file: string, unit: string, readUnit: UnitReader): FileDeploy {
  const read = readUnit(unit, lines.map((l) => l.text).join("\n"));
  const srcOf = (n: number): number => lines[n - 1]?.src ?? 1;
  const deploy = read.deploys[0];
  const service = deploy?.service ?? unit.replace(/\.service$/, "");
  const out: FileDeploy = { service, edits: [], problems: [], files: read.files.filter((f) => f !== unit) };
  for (const p of read.problems)
    out.problems.push({
      ...p,
      file: p.file === unit ? file : p.file,
      line: p.file === unit ? srcOf(p.line) : p.line,
      message: p.message.replaceAll(`${unit}:${p.line}:`, `${file}:${srcOf(p.line)}:`),
    });
  for (const e of deploy?.edits ?? []) {
    if (e.file !== unit) {
      out.edits.push(e);
      continue;
    }
    const span = logicalLine(lines, e.line);
    const unsure = span.find((l) => l.unsure)?.unsure;
    const key = e.kind === "gpus" ? "GPU" : e.kind === "flags" || e.kind === "set" || e.kind === "remove" ? e.key : null;
    if (unsure) {
      out.problems.push({
        kind: "unresolved",
        file,
        line: srcOf(e.line),
        message: unresolvedMessage(`${key ?? "a line"} for ${service}`, unsure.expr, unsure.reason),
        service,
        ...(key ? { key } : {}),
      });
      continue;
    }
    const at = { file, line: srcOf(e.line) };
    if (e.kind === "flags") {
      const flagFrom = flagsFrom(span);
      out.edits.push({ ...e, ...at, wordLines: wordLinesOf(span, e.value, at.line), ...(flagFrom.length > 0 ? { flagFrom } : {}) });
    } else if (e.kind === "set") {
      // `Environment=KEY={{ v }}`, or a value the command line holds (the image of `docker run`).
      const from = valueFrom(span, e.key, e.value) ?? valueFrom(span, null, e.value);
      const flagFrom = flagsFrom(span);
      out.edits.push({ ...e, ...at, ...(from ? { from } : {}), ...(flagFrom.length > 0 && isFlagKey(e.key) ? { flagFrom } : {}) });
    } else if (e.kind === "gpus") {
      const from = valueFrom(span, null, e.value);
      out.edits.push({ ...e, ...at, ...(from ? { from } : {}) });
    } else out.edits.push({ ...e, ...at });
  }
  return out;
}

/** The rendered lines of a unit entry: its first line and the lines a trailing backslash continues it on. */
function logicalLine(lines: readonly OutLine[], at: number): OutLine[] {
  const out: OutLine[] = [];
  for (let i = at - 1; i < lines.length; i++) {
    const l = lines[i] as OutLine;
    out.push(l);
    if (!/\\\s*$/.test(l.text)) break;
  }
  return out;
}

/** Which variables wrote a KEY=VALUE entry's value and the flag values inside it. */
export function attribution(span: readonly OutLine[], key: string, value: string): { from?: VarRef; flagFrom?: FlagFrom[] } {
  const from = valueFrom(span, key, value);
  const flagFrom = flagsFrom(span);
  return { ...(from ? { from } : {}), ...(flagFrom.length > 0 ? { flagFrom } : {}) };
}

/** The variable that wrote the whole value: a piece right after `KEY=` (or anywhere, with no key) that is the value. */
function valueFrom(span: readonly OutLine[], key: string | null, value: string): VarRef | null {
  for (const l of span)
    for (const p of l.parts) {
      if (!p.at || p.text.trim() !== value.trim()) continue;
      const before = l.text.slice(0, p.col);
      if (key === null || new RegExp(`(^|[\\s"'])(export\\s+)?${key}\\s*=\\s*["']?$`).test(before)) return p.at;
    }
  return null;
}

/** Each flag value a variable wrote: `--flag {{ v }}` or `--flag={{ v }}`. */
function flagsFrom(span: readonly OutLine[]): FlagFrom[] {
  const out: FlagFrom[] = [];
  for (const l of span)
    for (const p of l.parts) {
      if (!p.at) continue;
      const m = /(?:^|[\s"'])(--?[A-Za-z][\w.-]*)(?:=|\s+)["']?$/.exec(l.text.slice(0, p.col));
      if (m) out.push({ flag: m[1] as string, value: p.text.trim(), from: p.at });
    }
  return out;
}

/** The template line of each shell word of the command, found in order through the entry's lines. */
function wordLinesOf(span: readonly OutLine[], command: string, fallback: number): number[] {
  const written: { word: string; line: number }[] = [];
  for (const l of span)
    for (const w of l.text.replace(/\\\s*$/, "").split(/\s+/))
      if (w !== "") written.push({ word: w.replace(/^["']|["']$/g, ""), line: l.src });
  let words: string[];
  try {
    words = shellSplit(command);
  } catch {
    return [];
  }
  let at = 0;
  return words.map((w) => {
    const i = written.findIndex((x, j) => j >= at && (x.word === w || x.word.startsWith(`${w}=`)));
    if (i < 0) return fallback;
    at = i + 1;
    return written[i]?.line ?? fallback;
  });
}
