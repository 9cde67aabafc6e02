// Small helpers over the `yaml` AST: the reader walks nodes (not plain JS) so that every value it
// reports keeps the line it was written on.
import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, Scalar, type Document, type Node } from "yaml";
import { valueText } from "../units/text.js";
import { yamlOverLimits, type YamlLimits } from "../config/yaml-limits.js";
import { formatNumber } from "../units/bytes.js";

export interface YamlFile {
  path: string;
  doc: Document.Parsed;
  lines: LineCounter;
  errors: { line: number; message: string }[];
}

export function parseYamlFile(path: string, text: string, limits?: YamlLimits): YamlFile {
  const lines = new LineCounter();
  // With limits (a playbook's files): a shape that would cost the parser minutes or crash it is refused first.
  const over = limits ? yamlOverLimits(text, limits) : null;
  if (over)
    return {
      path,
      doc: parseDocument("", { lineCounter: lines }),
      lines,
      errors: [{ line: over.line, message: `${over.message}; kvgate does not read YAML this large` }],
    };
  // Ansible reads YAML 1.1 (merge keys, `yes`/`no`); unknown tags such as `!vault` stay strings.
  const doc = parseDocument(text, { lineCounter: lines, merge: true, version: "1.1", uniqueKeys: false, prettyErrors: true });
  // Very deep nesting makes the parser overflow its stack and then report every open bracket: say it once.
  const overflow = doc.errors.find((e) => /call stack/i.test(e.message));
  const errors = overflow
    ? [{ line: overflow.linePos?.[0]?.line ?? 1, message: "nested too deeply for a YAML parser; Ansible cannot load it either" }]
    : doc.errors.slice(0, MAX_ERRORS).map((e) => ({ line: e.linePos?.[0]?.line ?? 1, message: firstLine(e.message) }));
  if (errors.length === 0) {
    const hostile = hostileShape(doc, lines);
    if (hostile) errors.push(hostile);
  }
  return { path, doc, lines, errors };
}

const MAX_ERRORS = 10;
/** Far deeper than any real play (blocks in blocks in includes); past it, every recursive walk is at risk. */
const MAX_DEPTH = 100;
/** What the walk would visit with every alias and merge followed; an alias bomb is billions. */
const MAX_EXPANDED = 100_000;

/**
 * Finds what would make the walk blow up: nesting past MAX_DEPTH, or aliases that expand past
 * MAX_EXPANDED nodes. Sizes are memoised per node, so this is linear in the text however many
 * times an anchor is reused; no recursion, so no stack to overflow.
 */
export function hostileShape(doc: Document.Parsed, lines: LineCounter): { line: number; message: string } | null {
  const lineAt = (n: unknown): number => {
    const r = (n as Node | null)?.range;
    return r ? lines.linePos(r[0]).line : 1;
  };
  const children = (n: unknown): unknown[] => {
    if (isMap(n)) return n.items.flatMap((p) => (isPair(p) ? [p.key, p.value] : []));
    if (isSeq(n)) return n.items;
    return [];
  };
  const size = new Map<unknown, number>();
  const stack: { node: unknown; depth: number; entered: boolean }[] = [{ node: doc.contents, depth: 0, entered: false }];
  while (stack.length > 0) {
    const top = stack[stack.length - 1] as { node: unknown; depth: number; entered: boolean };
    const target = isAlias(top.node) ? top.node.resolve(doc) : top.node;
    if (top.depth > MAX_DEPTH)
      return { line: lineAt(target), message: `nested more than ${MAX_DEPTH} levels deep; flatten it (kvgate does not read it)` };
    if (target === undefined || target === null || size.has(target) || (!isMap(target) && !isSeq(target))) {
      if (!size.has(target)) size.set(target, 1);
      stack.pop();
      continue;
    }
    if (!top.entered) {
      // An alias inside its own anchor would loop: it only deepens, and the depth cap ends it.
      top.entered = true;
      for (const c of children(target))
        if (!size.has(isAlias(c) ? c.resolve(doc) : c)) stack.push({ node: c, depth: top.depth + 1, entered: false });
      continue;
    }
    let total = 1;
    for (const c of children(target)) total += size.get(isAlias(c) ? c.resolve(doc) : c) ?? 1;
    if (total > MAX_EXPANDED)
      return {
        line: lineAt(target),
        message: `its aliases expand to more than ${formatNumber(MAX_EXPANDED)} nodes (an alias bomb); kvgate does not read it`,
      };
    size.set(target, total);
    stack.pop();
  }
  return null;
}

/** The first line of a yaml error, without the `:` that introduces its source excerpt. */
function firstLine(s: string): string {
  return (s.split("\n")[0] ?? s).replace(/:\s*$/, "");
}

/** A node with aliases followed. */
export function deref(file: YamlFile, node: unknown): unknown {
  let n = node;
  for (let i = 0; i < 16 && isAlias(n); i++) n = n.resolve(file.doc);
  return n;
}

export function lineOf(file: YamlFile, node: unknown, fallback = 1): number {
  const n = node as Node | null | undefined;
  const start = n && typeof n === "object" && "range" in n && n.range ? n.range[0] : undefined;
  return start === undefined ? fallback : file.lines.linePos(start).line;
}

/** The line a block scalar's first content line sits on (`key: |` → the next line); else the node's line. */
export function contentLineOf(file: YamlFile, node: unknown, fallback = 1): { line: number; exact: boolean } {
  const line = lineOf(file, node, fallback);
  if (isScalar(node) && node.type === Scalar.BLOCK_LITERAL) return { line: line + 1, exact: true };
  return { line, exact: false };
}

/** The pairs of a mapping as [key, value node, key node], `<<` merges expanded (explicit keys win). */
export function pairsOf(file: YamlFile, node: unknown): [string, unknown, unknown][] {
  const map = deref(file, node);
  if (!isMap(map)) return [];
  const out: [string, unknown, unknown][] = [];
  const seen = new Set<string>();
  const merged: [string, unknown, unknown][] = [];
  for (const pair of map.items) {
    if (!isPair(pair)) continue;
    // With merge keys on, `<<` parses as a Symbol-valued scalar.
    const key = isScalar(pair.key)
      ? typeof pair.key.value === "symbol"
        ? (pair.key.source ?? "<<")
        : String(pair.key.value)
      : String(pair.key);
    if (key === "<<") {
      const src = deref(file, pair.value);
      const sources = isSeq(src) ? src.items : [src];
      for (const s of sources) merged.push(...pairsOf(file, s));
      continue;
    }
    seen.add(key);
    out.push([key, pair.value, pair.key]);
  }
  for (const m of merged) if (!seen.has(m[0])) out.push(m);
  return out;
}

export function isMapping(file: YamlFile, node: unknown): boolean {
  return isMap(deref(file, node));
}

export function itemsOf(file: YamlFile, node: unknown): unknown[] {
  const seq = deref(file, node);
  return isSeq(seq) ? seq.items : [];
}

export function isSequence(file: YamlFile, node: unknown): boolean {
  return isSeq(deref(file, node));
}

/** Plain JS for a node (vars values, env mappings); aliases and merges followed. */
export function toJs(file: YamlFile, node: unknown, depth = 0): unknown {
  const n = deref(file, node);
  if (n === null || n === undefined || depth > 32) return null;
  if (isScalar(n)) return n.value;
  if (isSeq(n)) return n.items.map((i) => toJs(file, i, depth + 1));
  if (isMap(n)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of pairsOf(file, n)) out[k] = toJs(file, v, depth + 1);
    return out;
  }
  return null;
}

/** The text of a scalar node; null for mappings, lists and null. */
export function scalarText(file: YamlFile, node: unknown): string | null {
  const n = deref(file, node);
  if (!isScalar(n) || n.value === null || n.value === undefined) return null;
  return valueText(n.value);
}
