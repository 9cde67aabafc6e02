// Turns zod issues into one line each, `path: message (file:line)`, so a broken file is reported
// whole at once instead of one problem per run.
import type { z } from "zod";
import { Document, LineCounter, parseDocument, isNode, isMap, isPair, isSeq } from "yaml";
import { yamlOverLimits } from "./yaml-limits.js";

export interface YamlLoad {
  doc: Document;
  lineCounter: LineCounter;
  value: unknown;
  errors: string[];
}

/** Parses YAML keeping positions; YAML syntax errors come back as messages with their line. */
export function parseYamlWithLines(text: string, file: string): YamlLoad {
  const lineCounter = new LineCounter();
  // Shapes that would cost the parser minutes or crash it are refused before it runs.
  const over = yamlOverLimits(text);
  if (over)
    return {
      doc: new Document(null),
      lineCounter,
      value: null,
      errors: [`${file}:${over.line}: ${over.message}; kvgate does not read YAML this large (docs/gated-files.md#caps)`],
    };
  // Aliases are capped so a YAML alias bomb is an error, not an out-of-memory crash.
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const where = (pos: number | undefined): string => `${file}${pos === undefined ? "" : `:${lineCounter.linePos(pos).line}`}`;
  // The parser answers very deep nesting with a stack overflow and then one error per open bracket:
  // say what happened once, instead of thousands of lines.
  const overflow = doc.errors.find((e) => /call stack/i.test(e.message));
  let errors = overflow
    ? [`${where(overflow.pos?.[0])}: nested too deeply for a YAML parser; kvgate.yaml needs only a few levels (see \`kvgate schema\`)`]
    : doc.errors.map((e) => `${where(e.pos?.[0])}: ${e.message.split("\n")[0]}`);
  if (errors.length > MAX_SYNTAX_ERRORS)
    errors = [...errors.slice(0, MAX_SYNTAX_ERRORS), `... and ${errors.length - MAX_SYNTAX_ERRORS} more YAML errors`];
  if (errors.length === 0) {
    const deep = tooDeep(doc.contents);
    if (deep)
      errors.push(
        `${where(deep.range?.[0])}: nested more than ${MAX_DEPTH} levels deep; kvgate.yaml needs only a few levels (see \`kvgate schema\`)`,
      );
  }
  let value: unknown = null;
  if (errors.length === 0) {
    try {
      value = doc.toJS({ maxAliasCount: 1000 });
    } catch (e) {
      errors.push(`${file}: ${(e as Error).message}`);
    }
  }
  return { doc, lineCounter, value, errors };
}

const MAX_SYNTAX_ERRORS = 10;
/** The schema's deepest path is under ten levels; far past that is hostile, and would overflow the stack of whatever walks it next. */
const MAX_DEPTH = 64;

/** The first node deeper than MAX_DEPTH, walked without recursion. */
function tooDeep(root: unknown): { range?: [number, number, number] | null } | null {
  const stack: [unknown, number][] = [[root, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [unknown, number];
    if (!isMap(node) && !isSeq(node)) continue;
    if (depth >= MAX_DEPTH) return node;
    for (const item of node.items) {
      if (isPair(item)) {
        stack.push([item.key, depth + 1], [item.value, depth + 1]);
      } else stack.push([item, depth + 1]);
    }
  }
  return null;
}

export function lineOf(load: YamlLoad, path: readonly PropertyKey[]): number | null {
  for (let n = path.length; n >= 0; n--) {
    const node = load.doc.getIn(path.slice(0, n) as unknown[], true);
    if (isNode(node) && node.range) return load.lineCounter.linePos(node.range[0]).line;
  }
  return null;
}

export function formatZodIssues(error: z.ZodError, load: YamlLoad | null, file: string): string[] {
  return error.issues.map((issue) => {
    const path = issue.path.map(String).join(".") || "(top level)";
    const line = load ? lineOf(load, issue.path) : null;
    let message = issue.message;
    if (issue.code === "unrecognized_keys")
      message = `unknown key${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => `"${k}"`).join(", ")}`;
    return `${path}: ${message} (${file}${line ? `:${line}` : ""})`;
  });
}
