// A multi-document YAML file read as Kubernetes reads it (`kubectl apply -f`: every `---` document an
// object), within limits a hostile file cannot push past: a size, a document count, a flow-nesting
// depth checked before the parser runs (the parser itself recurses on `[[[[`), and a node budget for
// aliases. What the limits refuse is a parse problem at its line, never a hang or a crash.
import { Composer, LineCounter, Parser } from "yaml";
import { treeOfDocument, type KNode, type TreeBudget } from "./tree.js";
import { hostileShape } from "../playbook/nodes.js";

/** Far larger than any manifest or values file (the biggest CRD bundles are a few MiB). */
const MAX_FILE_BYTES = 8 * 1024 * 1024;
export const MAX_DOCUMENTS = 2000;
const MAX_NODES = 500_000;
const MAX_FLOW_DEPTH = 100;
const MAX_ERRORS = 5;

interface YamlDoc {
  tree: KNode | null;
  /** The line of the document's first content. */
  line: number;
}

interface YamlProblem {
  line: number;
  message: string;
}

export interface ParsedFile {
  docs: YamlDoc[];
  problems: YamlProblem[];
}

/** The first line whose `[`/`{` nesting passes the limit, or null. Quotes are skipped; comments end a line. */
function flowTooDeep(text: string): number | null {
  let depth = 0;
  let line = 1;
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "\n") {
      line++;
      if (quote === null) continue;
    }
    if (quote !== null) {
      if (c === quote) quote = null;
      continue;
    }
    if (c === "#" && (i === 0 || /\s/.test(text[i - 1] as string))) {
      while (i < text.length && text[i] !== "\n") i++;
      i--;
      continue;
    }
    if (c === '"' || c === "'") {
      // A quote opens a string only where a value starts (not inside a word such as don't).
      const prev = i === 0 ? " " : (text[i - 1] as string);
      if (/[\s[{,:]/.test(prev)) quote = c;
    } else if (c === "[" || c === "{") {
      if (++depth > MAX_FLOW_DEPTH) return line;
    } else if ((c === "]" || c === "}") && depth > 0) depth--;
  }
  return null;
}

export function parseYamlDocs(path: string, text: string): ParsedFile {
  const problems: YamlProblem[] = [];
  if (text.length > MAX_FILE_BYTES) {
    return {
      docs: [],
      problems: [{ line: 1, message: `${path} is larger than ${MAX_FILE_BYTES / 1024 / 1024} MiB; kvgate does not read it (split it)` }],
    };
  }
  const deep = flowTooDeep(text);
  if (deep !== null)
    return {
      docs: [],
      problems: [{ line: deep, message: `nested more than ${MAX_FLOW_DEPTH} levels deep; kubectl cannot apply it either` }],
    };
  const lines = new LineCounter();
  const parser = new Parser(lines.addNewLine);
  // Kubernetes reads YAML 1.2 (sigs.k8s.io/yaml), which refuses a key given twice in one mapping.
  const composer = new Composer({ lineCounter: lines, uniqueKeys: true });
  const budget: TreeBudget = { nodes: MAX_NODES, exceeded: null };
  const docs: YamlDoc[] = [];
  let count = 0;
  for (const doc of composer.compose(parser.parse(text), true)) {
    if (++count > MAX_DOCUMENTS) {
      problems.push({
        line: lines.linePos(doc.range[0]).line,
        message: `more than ${MAX_DOCUMENTS} documents; kvgate reads none past them (split the file)`,
      });
      break;
    }
    for (const e of doc.errors.slice(0, MAX_ERRORS - problems.length)) {
      problems.push({ line: lines.linePos(e.pos[0]).line, message: (e.message.split("\n")[0] ?? e.message).replace(/:\s*$/, "") });
    }
    if (doc.errors.length > 0) continue;
    const line = lines.linePos(doc.contents?.range?.[0] ?? doc.range[0]).line;
    // Depth and alias expansion measured first, without building anything (linear in the text).
    const hostile = hostileShape(doc, lines);
    if (hostile) {
      problems.push(hostile);
      return { docs: [], problems };
    }
    const tree = treeOfDocument(doc, path, lines, budget);
    if (budget.exceeded) {
      problems.push({ line, message: `${budget.exceeded}; kvgate does not read the file` });
      return { docs: [], problems };
    }
    docs.push({ tree, line });
  }
  return { docs, problems };
}
