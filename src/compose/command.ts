// What a compose service runs: its `entrypoint` then its `command` (compose spec, services
// `command`/`entrypoint`: a string is split into shell words, a list is the words), as the words of
// one command line with the line each word is written on. A `sh -c "vllm serve …"` wrapper is
// opened when the script is one plain command, so its flags are read like any other.
//
// Two kinds of variable are in a command. Compose's own (`${LEN}`) are interpolated before anything
// runs; one that stays unknown (the deploy host's shell would set it) leaves out only its own word
// (and the flag it is the value of), never the rest of the command. The container shell's
// (`$${LEN}` in the file, `${LEN}` in the `sh -c` script) are the service's environment as the
// container gets it (environment over env_file): resolved from there, or kept as written when it does
// not set them, which vLLM cannot read (engine/bad-value), so the seat is never sized by a default.
import { posix } from "node:path";
import { join as shellJoin, split as shellSplit } from "shlex";
import { runsVllm, VLLM_IMAGE } from "../playbook/engine-command.js";
import { problem, type Ctx } from "./context.js";
import { interpolate, UNKNOWN_CLOSE, UNKNOWN_OPEN, type Lookup } from "./interpolate.js";
import { get, type CMap, type CNode } from "./tree.js";

export interface CommandLine {
  /** The words joined back with shell quoting (what the `flags` edit holds). */
  value: string;
  /** The line of each word in `file`. */
  wordLines: number[];
  file: string;
  line: number;
  /** The words run vLLM's server itself (see runsVllm): it reads this line, not kvgate's env keys. */
  runsEngine: boolean;
}

interface Token {
  word: string;
  node: CNode;
}

const SHELLS = new Set(["sh", "bash", "dash", "ash", "zsh"]);
/** vLLM's OpenAI image runs `vllm serve` as its ENTRYPOINT, so `command: [Qwen/Qwen3-8B, --max-model-len, …]`
 *  serves that model: the words are read as `vllm serve` + the command, as the container runs them. */
const VLLM_ENTRYPOINT = ["vllm", "serve"];
/** Operators that make a script more than one command: kvgate does not guess which part is the server. */
const SCRIPT_OPERATORS = /[;&|`<>]|\$\(|\n/;
const MARKED = new RegExp(`${UNKNOWN_OPEN}([^${UNKNOWN_CLOSE}]*)${UNKNOWN_CLOSE}`, "g");

/** The command line of a service; null when it sets neither (the image's own command runs) or one is unreadable. */
export function commandOf(ctx: Ctx, service: string, def: CMap, container: Lookup): CommandLine | null {
  const entrypoint = get(def, "entrypoint");
  const command = get(def, "command");
  const parts = [entrypoint, command].filter((n): n is CNode => n !== undefined && !(n.t === "str" && n.value === null && !n.unresolved));
  if (parts.length === 0) return null;
  const tokens: Token[] = [];
  for (const node of parts) {
    const t = tokensOf(ctx, service, node, node === entrypoint ? "entrypoint" : "command");
    if (t === null) return null;
    tokens.push(...t);
  }
  const words = known(ctx, service, unwrapShell(ctx, service, tokens, container));
  const anchor = (command && parts.includes(command) ? command : parts[0]) as CNode;
  const image = get(def, "image");
  const first = words[0]?.word;
  const stockEntrypoint = entrypoint === undefined && image?.t === "str" && image.value !== null && VLLM_IMAGE.test(image.value);
  const imageEntrypoint =
    stockEntrypoint &&
    first !== undefined &&
    !first.startsWith("-") &&
    !["vllm", "serve"].includes(first) &&
    !/^python/.test(first) &&
    !SHELLS.has(posix.basename(first))
      ? VLLM_ENTRYPOINT
      : [];
  const file = anchor.pos.file;
  const locators = new Map<CNode, (w: string) => number>();
  const wordLines = words.map((t) => {
    if (t.node.pos.file !== file) return anchor.pos.line;
    let find = locators.get(t.node);
    if (!find) locators.set(t.node, (find = locator(t.node)));
    return find(t.word);
  });
  const all = [...imageEntrypoint, ...words.map((t) => t.word)];
  return {
    value: shellJoin(all),
    // The stock image's entrypoint is the server (`vllm serve`, the API server module before it): words
    // given to it are its arguments, unless they start a shell of their own.
    runsEngine: runsVllm(all) || (stockEntrypoint && first !== undefined && !/^python/.test(first) && !SHELLS.has(posix.basename(first))),
    wordLines: [...imageEntrypoint.map(() => anchor.pos.line), ...wordLines],
    file,
    line: anchor.pos.line,
  };
}

/** The words of a command or entrypoint; a word compose could not interpolate keeps its marks. */
function tokensOf(ctx: Ctx, service: string, node: CNode, what: string): Token[] | null {
  if (node.t === "str") {
    const text = node.unresolved ? node.unresolved.partial : (node.value ?? "");
    if (text === undefined) return null;
    try {
      return shellSplit(text).map((word) => ({ word, node }));
    } catch (e) {
      problem(ctx, {
        kind: "parse",
        file: node.pos.file,
        line: node.pos.line,
        message: `${what} of ${service} cannot be split into shell words (${(e as Error).message}); docker compose refuses it: check its quotes`,
        service,
        key: "COMMAND",
      });
      return null;
    }
  }
  if (node.t === "seq") {
    const out: Token[] = [];
    for (const item of node.items) {
      if (item.t !== "str") continue;
      out.push({ word: item.unresolved ? (item.unresolved.partial ?? "") : (item.value ?? ""), node: item });
    }
    return out;
  }
  problem(ctx, {
    kind: "parse",
    file: node.pos.file,
    line: node.pos.line,
    message: `${what} of ${service} must be a string or a list; docker compose refuses it`,
    service,
    key: "COMMAND",
  });
  return null;
}

/**
 * The words compose could interpolate. A word holding a variable the `.env` does not set is left out,
 * with the flag it is the value of (`--max-model-len ${LEN}` → both): the env file's setting, if it
 * has one, then stands, as for any unresolved compose value. The notice names the words.
 */
function known(ctx: Ctx, service: string, tokens: readonly Token[]): Token[] {
  const out: Token[] = [];
  for (const t of tokens) {
    const vars = [...t.word.matchAll(MARKED)].map((m) => m[1] as string);
    if (vars.length === 0) {
      out.push(t);
      continue;
    }
    const prev = out[out.length - 1];
    const flag =
      !t.word.startsWith("-") && prev && /^--?[A-Za-z]/.test(prev.word) && !prev.word.includes("=") ? (out.pop() as Token) : null;
    const shown = `${flag ? `${flag.word} ` : ""}${t.word.replace(MARKED, (_m, v: string) => "${" + v + "}")}`;
    problem(ctx, {
      kind: "unresolved",
      file: t.node.pos.file,
      line: t.node.pos.line,
      message:
        `${shown} in the command of ${service}: ${[...new Set(vars)].map((v) => "${" + v + "}").join(", ")} ` +
        `is not set in the .env beside the compose file; ` +
        `docker compose takes it from the deploy host's shell, which kvgate ` +
        `cannot see, so that setting is skipped and the rest of the command is read ` +
        `(set it in the .env, or give a default: \${${vars[0] as string}:-value})`,
      service,
      key: "COMMAND",
    });
  }
  return out;
}

/**
 * `sh -c "exec vllm serve M --max-model-len ${LEN}"` → the words of the script, each still on its
 * line, with the container shell's variables expanded from the service's environment (outside single
 * quotes, as sh does). One the environment does not set stays as written, with a notice.
 */
function unwrapShell(ctx: Ctx, service: string, tokens: Token[], container: Lookup): Token[] {
  const [sh, flag, script, ...rest] = tokens;
  if (!sh || !flag || !script || rest.length > 0) return tokens;
  if (!SHELLS.has(posix.basename(sh.word)) || !/^-[a-z]*c$/.test(flag.word) || SCRIPT_OPERATORS.test(script.word)) return tokens;
  const missing: string[] = [];
  const expanded = script.word
    .split(/('[^']*')/)
    .map((seg) => {
      if (seg.startsWith("'") || !seg.includes("$")) return seg;
      const r = interpolate(seg, container);
      if (r.ok) return r.value;
      if (r.kind === "invalid") return seg;
      missing.push(...r.vars);
      return r.partial.replace(MARKED, (_m, v: string) => "${" + v + "}");
    })
    .join("");
  let inner: string[];
  try {
    inner = shellSplit(expanded);
  } catch {
    return tokens;
  }
  if (missing.length > 0)
    problem(ctx, {
      kind: "unresolved",
      file: script.node.pos.file,
      line: script.node.pos.line,
      message:
        `${[...new Set(missing)].map((v) => "${" + v + "}").join(", ")} in the ${sh.word} ` +
        `-c script of ${service} is the container shell's variable, and the service's environment ` +
        `(environment, env_file) does not set it: the container may well get no value, ` +
        `so kvgate does not read the setting it is in (set it in the service's environment)`,
      service,
      key: "COMMAND",
    });
  if (inner[0] === "exec") inner = inner.slice(1);
  return inner.map((word) => ({ word, node: script.node }));
}

/** Finds each word of a scalar, in order, in the text it is written in (a folded `>` command spans lines). */
function locator(node: CNode): (word: string) => number {
  const span = node.t === "str" ? node.span : undefined;
  let cursor = span?.start ?? 0;
  let last = node.pos.line;
  return (word) => {
    if (!span || word === "") return last;
    const i = span.src.text.indexOf(word, cursor);
    if (i < 0 || i >= span.end) return last;
    cursor = i + word.length;
    last = span.src.lineAt(i);
    return last;
  };
}
