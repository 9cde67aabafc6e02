// The shape limits of every YAML file kvgate reads from a repository (kvgate.yaml, ledger facts, the
// observed file, playbooks; docs/gated-files.md#caps): a pull request is untrusted input, and the
// `yaml` parser answers some shapes with minutes of work (a million flow items: 20 s) or a crash no
// try/catch can stop (100,000 nested `[`: V8 runs out of memory compiling a RegExp). So the text is
// first walked by yaml's own Lexer (a flat state machine: no recursion, about a microsecond a token)
// and refused, with the line, before the parser sees it. Nesting of block collections, which the
// parser meets with a caught stack overflow, is checked on the parsed document by each reader.
import { Lexer } from "yaml";
import { formatInt } from "../units/bytes.js";

export interface YamlLimits {
  /** `---` documents in the file. */
  documents: number;
  /** Values, keys and collections (scalars, aliases, `[`, `{`, `-`, `?` and `:` tokens). */
  nodes: number;
  /** Flow collections (`[`, `{`) open at once. */
  flowDepth: number;
}

/** One document, far more nodes than any real file of these kinds holds (a 1,000-host kvgate.yaml is about 20,000). */
export const YAML_LIMITS: YamlLimits = { documents: 1, nodes: 250_000, flowDepth: 64 };

/** A text this short cannot pass the node limit nor nest deep enough to hurt the parser: not lexed (the hook's kvgate.yaml). */
const TOO_SHORT_TO_MATTER = 8 * 1024;

const NODE_TOKENS = new Set(["\u001f", "[", "{", "-", "?", ":"]);

export interface YamlOverLimit {
  /** 1-based line where the limit was passed. */
  line: number;
  message: string;
}

/** Whether a lexer token starts a node: a plain scalar's marker, a quoted or block scalar, an alias, an indicator. */
function isNode(token: string): boolean {
  if (NODE_TOKENS.has(token)) return true;
  const c = token.charCodeAt(0);
  return c === 0x27 /* ' */ || c === 0x22 /* " */ || c === 0x2a /* * */ || c === 0x7c /* | */ || c === 0x3e; /* > */
}

function newlines(token: string): number {
  let n = 0;
  for (let i = token.indexOf("\n"); i >= 0; i = token.indexOf("\n", i + 1)) n++;
  return n;
}

/** Null when the text is within the limits; else the first limit passed, at its line. */
export function yamlOverLimits(text: string, limits: YamlLimits = YAML_LIMITS): YamlOverLimit | null {
  if (text.length < TOO_SHORT_TO_MATTER) return null;
  let line = 1;
  let starts = 0;
  let before = false;
  let nodes = 0;
  let depth = 0;
  for (const token of new Lexer().lex(text)) {
    if (token === "---") {
      starts++;
      if (starts + (before ? 1 : 0) > limits.documents)
        return {
          line,
          message: `holds more than ${formatInt(limits.documents)} YAML document${limits.documents === 1 ? "" : "s"} (\`---\`)`,
        };
    } else if (isNode(token)) {
      if (starts === 0) before = true;
      if (++nodes > limits.nodes)
        return { line, message: `holds more than ${formatInt(limits.nodes)} YAML nodes (keys, values and collections)` };
      if ((token === "[" || token === "{") && ++depth > limits.flowDepth)
        return {
          line,
          message: `nested too deeply: more than ${formatInt(limits.flowDepth)} flow collections (\`[\`, \`{\`) open inside each other`,
        };
    } else if (token === "]" || token === "}") depth = Math.max(0, depth - 1);
    line += newlines(token);
  }
  return null;
}
