// What a compose service runs: its `entrypoint` then its `command` (compose spec, services
// `command`/`entrypoint`: a string is split into shell words, a list is the words), as the words of
// one command line with the line each word is written on. A `sh -c "vllm serve …"` wrapper is
// opened when the script is one plain command, so its flags are read like any other.
import { posix } from "node:path";
import { join as shellJoin, split as shellSplit } from "shlex";
import { problem, unresolved, type Ctx } from "./context.js";
import { get, type CMap, type CNode } from "./tree.js";

export interface CommandLine {
  /** The words joined back with shell quoting (what the `flags` edit holds). */
  value: string;
  /** The line of each word in `file`. */
  wordLines: number[];
  file: string;
  line: number;
}

interface Token {
  word: string;
  node: CNode;
}

const SHELLS = new Set(["sh", "bash", "dash", "ash", "zsh"]);
/** vLLM's OpenAI image runs `vllm serve` as its ENTRYPOINT, so `command: [Qwen/Qwen3-8B, --max-model-len, …]`
 *  serves that model: the words are read as `vllm serve` + the command, as the container runs them. */
const VLLM_IMAGE = /^(docker\.io\/)?vllm\/vllm-openai(:|@|$)/;
const VLLM_ENTRYPOINT = ["vllm", "serve"];
/** Operators that make a script more than one command: kvgate does not guess which part is the server. */
const SCRIPT_OPERATORS = /[;&|`<>]|\$\(|\n/;

/** The command line of a service; null when it sets neither (the image's own command runs) or one is unreadable. */
export function commandOf(ctx: Ctx, service: string, def: CMap): CommandLine | null {
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
  const words = unwrapShell(tokens);
  const anchor = (command && parts.includes(command) ? command : parts[0]) as CNode;
  const image = get(def, "image");
  const first = words[0]?.word;
  const imageEntrypoint =
    entrypoint === undefined &&
    image?.t === "str" &&
    image.value !== null &&
    VLLM_IMAGE.test(image.value) &&
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
  return {
    value: shellJoin([...imageEntrypoint, ...words.map((t) => t.word)]),
    wordLines: [...imageEntrypoint.map(() => anchor.pos.line), ...wordLines],
    file,
    line: anchor.pos.line,
  };
}

function tokensOf(ctx: Ctx, service: string, node: CNode, what: string): Token[] | null {
  if (node.t === "str") {
    if (node.unresolved) {
      unresolved(ctx, node, `${what} of ${service}`, service, "COMMAND");
      return null;
    }
    try {
      return shellSplit(node.value ?? "").map((word) => ({ word, node }));
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
      if (item.unresolved) {
        unresolved(ctx, item, `${what} of ${service}`, service, "COMMAND");
        return null;
      }
      out.push({ word: item.value ?? "", node: item });
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

/** `sh -c "exec vllm serve M --max-model-len 8192"` → the words of the script, each still on its line. */
function unwrapShell(tokens: Token[]): Token[] {
  const [sh, flag, script, ...rest] = tokens;
  if (!sh || !flag || !script || rest.length > 0) return tokens;
  if (!SHELLS.has(posix.basename(sh.word)) || !/^-[a-z]*c$/.test(flag.word) || SCRIPT_OPERATORS.test(script.word)) return tokens;
  let inner: string[];
  try {
    inner = shellSplit(script.word);
  } catch {
    return tokens;
  }
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
    const i = span.text.indexOf(word, cursor);
    if (i < 0 || i >= span.end) return last;
    cursor = i + word.length;
    last = span.lines.linePos(i).line;
    return last;
  };
}
