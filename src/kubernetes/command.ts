// What a container runs, as Kubernetes runs it (core/v1 Container): `command` replaces the image's
// ENTRYPOINT and `args` its CMD; neither runs in a shell; `$(VAR)` in either is the container's
// variable (`$$` a literal `$`; a name the container does not define is left as written). A
// `sh -c "…"` script is opened: one command is read as its words; a script of several commands
// (`run-setup.sh; vllm serve …`) is read as the one command that runs an engine, when exactly one does.
import { posix } from "node:path";
import { join as shellJoin, split as shellSplit } from "shlex";
import { get, textOf, type KNode } from "./tree.js";
import type { K8sProblem } from "./records.js";

export interface CommandLine {
  /** The words joined back with shell quoting (what the `flags` edit holds). */
  value: string;
  /** The line of each word. */
  wordLines: number[];
  file: string;
  line: number;
}

/** A container variable as the reader knows it: its value, or null when the repository cannot say (a secretKeyRef, a ConfigMap not committed). */
export type VarLookup = (name: string) => { value: string | null } | undefined;

export interface CommandContext {
  service: string;
  problems: K8sProblem[];
  /** True for the words of a command that runs an engine (`vllm serve …`): picks the server out of a script. */
  runsEngine: (words: readonly string[]) => boolean;
}

interface Word {
  word: string;
  line: number;
}

const SHELLS = new Set(["sh", "bash", "dash", "ash", "zsh"]);
/** vLLM's OpenAI image has `vllm serve` as its ENTRYPOINT: with no `command`, `args` are the words after it. */
const VLLM_IMAGE = /^([a-z0-9.-]+(:\d+)?\/)?vllm\/vllm-openai(:|@|$)/;

/** `$(VAR)` expanded from the container's variables; `$$(VAR)` stays `$(VAR)` (core/v1 Container.args). */
function expand(text: string, vars: VarLookup, unknown: Set<string>): string {
  return text.replace(/\$(\$|\(([A-Za-z_][A-Za-z0-9_.-]*)\))/g, (all, inner: string, name: string | undefined) => {
    if (inner === "$") return "$";
    if (!name) return all;
    const v = vars(name);
    if (v === undefined) return all;
    if (v.value === null) {
      unknown.add(name);
      return all;
    }
    return v.value;
  });
}

/** The words of a scalar or a list; a scalar command is one word (Kubernetes does not split it). */
function wordsOf(node: KNode | undefined): Word[] | null {
  if (node === undefined || (node.t === "str" && node.value === null)) return null;
  if (node.t === "seq") return node.items.map((i) => ({ word: textOf(i) ?? "", line: i.pos.line + (i.t === "str" && i.block ? 1 : 0) }));
  if (node.t === "str") return [{ word: node.value ?? "", line: node.pos.line + (node.block ? 1 : 0) }];
  return [];
}

/** A shell script's commands: split at unquoted `;`, `&&`, `||`, `|` and line ends (comments dropped). */
function scriptCommands(script: string): string[] {
  const out: string[] = [];
  let cur = "";
  let quote: string | null = null;
  for (let i = 0; i < script.length; i++) {
    const c = script[i] as string;
    if (quote) {
      cur += c;
      if (c === "\\" && quote === '"' && i + 1 < script.length) cur += script[++i];
      else if (c === quote) quote = null;
      continue;
    }
    if (c === "\\" && script[i + 1] === "\n") {
      i++;
      cur += " ";
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    if (c === "#" && (cur === "" || /\s$/.test(cur))) {
      while (i < script.length && script[i] !== "\n") i++;
      out.push(cur);
      cur = "";
      continue;
    }
    if (c === ";" || c === "\n" || c === "|" || (c === "&" && script[i + 1] === "&")) {
      if (c === "&" || (c === "|" && script[i + 1] === "|")) i++;
      out.push(cur);
      cur = "";
      continue;
    }
    cur += c;
  }
  out.push(cur);
  return out.map((s) => s.trim()).filter((s) => s !== "");
}

/** `sh -c "…"`: the words of the script's one command, or of the one that runs an engine. */
function openShell(words: Word[], ctx: CommandContext): Word[] {
  const [sh, flag, script, ...rest] = words;
  if (!sh || !flag || !script || rest.length > 0) return words;
  if (!SHELLS.has(posix.basename(sh.word)) || !/^-[a-z]*c$/.test(flag.word)) return words;
  const commands: string[][] = [];
  for (const c of scriptCommands(script.word)) {
    try {
      const w = shellSplit(c);
      commands.push(w[0] === "exec" ? w.slice(1) : w);
    } catch {
      commands.push([]);
    }
  }
  const engines = commands.filter((w) => ctx.runsEngine(w));
  const chosen = commands.length === 1 ? commands[0] : engines.length === 1 ? engines[0] : undefined;
  return chosen ? chosen.map((word) => ({ word, line: script.line })) : words;
}

/**
 * The command line of a container; null when it sets neither `command` nor `args` (the image's own
 * runs, which kvgate cannot see) or when one is not a string list.
 */
export function commandOf(container: KNode, vars: VarLookup, ctx: CommandContext): CommandLine | null {
  const commandNode = get(container, "command");
  const argsNode = get(container, "args");
  for (const [key, n] of [
    ["command", commandNode],
    ["args", argsNode],
  ] as const) {
    if (n && n.t !== "seq" && !(n.t === "str" && n.value === null)) {
      ctx.problems.push({
        kind: "parse",
        file: n.pos.file,
        line: n.pos.line,
        message: `${key} of ${ctx.service} must be a list of strings; the API server refuses the object`,
        service: ctx.service,
        key: "COMMAND",
      });
      return null;
    }
    if (n?.t === "seq" && n.items.some((i) => i.t !== "str")) {
      const bad = n.items.find((i) => i.t !== "str") as KNode;
      ctx.problems.push({
        kind: "parse",
        file: bad.pos.file,
        line: bad.pos.line,
        message: `${key} of ${ctx.service} holds a ${bad.t === "map" ? "mapping" : "list"} where a string belongs; the API server refuses the object`,
        service: ctx.service,
        key: "COMMAND",
      });
      return null;
    }
  }
  const command = wordsOf(commandNode);
  const args = wordsOf(argsNode);
  if (command === null && args === null) return null;
  const anchor = (argsNode ?? commandNode) as KNode;
  const unknown = new Set<string>();
  const expanded = [...(command ?? []), ...(args ?? [])].map((w) => ({ ...w, word: expand(w.word, vars, unknown) }));
  let words = openShell(expanded, ctx);
  const image = textOf(get(container, "image")) ?? "";
  // No command: the image's ENTRYPOINT runs with `args` (vLLM's is `vllm serve`).
  if (command === null && VLLM_IMAGE.test(image.trim()))
    words = [...["vllm", "serve"].map((word) => ({ word, line: anchor.pos.line })), ...words];
  words = dropUnknown(words, unknown, ctx, anchor);
  return { value: shellJoin(words.map((w) => w.word)), wordLines: words.map((w) => w.line), file: anchor.pos.file, line: anchor.pos.line };
}

/** A flag whose value comes from a variable the repository cannot give (a Secret, a ConfigMap not committed) is not read. */
function dropUnknown(words: Word[], unknown: ReadonlySet<string>, ctx: CommandContext, anchor: KNode): Word[] {
  if (unknown.size === 0) return words;
  const names = [...unknown];
  const holds = (w: string): boolean => names.some((n) => w.includes(`$(${n})`));
  const out: Word[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i] as Word;
    if (!holds(w.word)) {
      out.push(w);
      continue;
    }
    const prev = out[out.length - 1];
    const flag = prev && /^--?[A-Za-z]/.test(prev.word) && !prev.word.includes("=") ? out.pop() : undefined;
    const what = flag ? flag.word : w.word.startsWith("-") ? (w.word.split("=")[0] ?? w.word) : w.word;
    ctx.problems.push({
      kind: "unresolved",
      file: anchor.pos.file,
      line: w.line,
      message:
        `${what} of ${ctx.service} takes $(${names.find((n) => w.word.includes(`$(${n})`))}), ` +
        `which comes from outside the repository (a ` +
        `Secret, the downward API, a ConfigMap not committed); kvgate skips it`,
      service: ctx.service,
      // The flag it skips: coverage counts the seat unsized when that flag is a sizing setting.
      key: what.startsWith("-") ? what : "COMMAND",
    });
  }
  return out;
}
