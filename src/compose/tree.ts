// A compose file as a plain tree whose every value keeps the file and line it is written on, with
// YAML anchors, aliases and merge keys (`<<: *default`, `<<: [*a, *b]`) followed and every scalar
// interpolated. Compose interpolates each file before merging files (compose spec "Interpolation"),
// so a tree is built per file with that file's variables, and the merge rules (merge.ts) work on
// trees from several files without losing where each value came from.
import { isMap, isPair, isScalar, isSeq, type LineCounter, type YAMLMap } from "yaml";
import { deref, lineOf, pairsOf, type YamlFile } from "../playbook/nodes.js";
import { interpolate, type Lookup } from "./interpolate.js";
import { valueText } from "../units/text.js";

export interface Pos {
  file: string;
  line: number;
}

/** Where a string scalar is written, so each shell word of a command can be given its own line. */
interface Span {
  text: string;
  start: number;
  end: number;
  lines: LineCounter;
}

interface Unresolved {
  vars: string[];
  /** The `${VAR:?message}` text of a required variable. */
  required?: string;
}

export type CNode =
  /** A scalar as text (numbers and booleans as written); null for YAML null. */
  | { t: "str"; value: string | null; pos: Pos; unresolved?: Unresolved; span?: Span; override?: boolean }
  | { t: "seq"; items: CNode[]; pos: Pos; override?: boolean }
  | { t: "map"; entries: Map<string, CEntry>; pos: Pos; override?: boolean }
  /** `!reset`: the merge removes what the files before set. */
  | { t: "reset"; pos: Pos };

export interface CEntry {
  keyPos: Pos;
  value: CNode;
}

export type CMap = Extract<CNode, { t: "map" }>;

export interface TreeProblem {
  line: number;
  message: string;
}

/** The tree of a parsed YAML file, or its problems (an invalid `${`, a key defined twice). */
export function treeOf(file: YamlFile, text: string, lookup: Lookup): { tree: CNode | null; problems: TreeProblem[] } {
  const problems: TreeProblem[] = [];
  const tree = convert(file, text, file.doc.contents, lookup, problems, 0);
  return { tree, problems };
}

function convert(file: YamlFile, text: string, node: unknown, lookup: Lookup, problems: TreeProblem[], depth: number): CNode | null {
  const n = deref(file, node);
  const pos = (fallback?: number): Pos => ({ file: file.path, line: lineOf(file, n, fallback) });
  if (n === null || n === undefined) return null;
  const tag = (n as { tag?: string }).tag;
  if (tag === "!reset") return { t: "reset", pos: pos() };
  const override = tag === "!override" ? { override: true } : {};
  // The parser's own hostile-shape check caps depth at 100; this guards the recursion regardless.
  if (depth > 120) return null;
  if (isScalar(n)) {
    const raw = n.value === null || n.value === undefined ? null : typeof n.value === "string" ? n.value : (n.source ?? valueText(n.value));
    const span: Span | undefined = n.range ? { text, start: n.range[0], end: n.range[1], lines: file.lines } : undefined;
    if (raw === null) return { t: "str", value: null, pos: pos(), ...override };
    const r = interpolate(raw, lookup);
    if (r.ok) return { t: "str", value: r.value, pos: pos(), ...(span ? { span } : {}), ...override };
    if (r.kind === "invalid") {
      problems.push({ line: pos().line, message: `${r.message}; docker compose refuses the file (write $$ for a literal $)` });
      return { t: "str", value: null, pos: pos(), unresolved: { vars: [] } };
    }
    return {
      t: "str",
      value: null,
      pos: pos(),
      unresolved: { vars: r.vars, ...(r.required !== undefined ? { required: r.required } : {}) },
      ...override,
    };
  }
  if (isSeq(n)) {
    const items: CNode[] = [];
    for (const item of n.items) {
      const c = convert(file, text, item, lookup, problems, depth + 1);
      items.push(c ?? { t: "str", value: null, pos: { file: file.path, line: lineOf(file, deref(file, item), pos().line) } });
    }
    return { t: "seq", items, pos: pos(), ...override };
  }
  if (isMap(n)) {
    duplicateKeys(file, n, problems);
    const entries = new Map<string, CEntry>();
    // Explicit keys first, then merged ones in order: the first of a key wins (YAML merge keys).
    for (const [key, value, keyNode] of pairsOf(file, n)) {
      if (entries.has(key)) continue;
      const keyPos: Pos = { file: file.path, line: lineOf(file, keyNode) };
      const c = convert(file, text, value, lookup, problems, depth + 1);
      entries.set(key, { keyPos, value: c ?? { t: "str", value: null, pos: keyPos } });
    }
    return { t: "map", entries, pos: pos(), ...override };
  }
  return null;
}

/** Compose's YAML parser refuses a mapping that defines a key twice. */
function duplicateKeys(file: YamlFile, map: YAMLMap, problems: TreeProblem[]): void {
  const seen = new Map<string, number>();
  for (const pair of map.items) {
    if (!isPair(pair) || !isScalar(pair.key) || typeof pair.key.value === "symbol") continue;
    const key = String(pair.key.value);
    const line = lineOf(file, pair.key);
    const first = seen.get(key);
    if (first !== undefined)
      problems.push({
        line,
        message: `${key} is defined twice in the same mapping (lines ${first} and ${line}); docker compose refuses the file: delete one`,
      });
    else seen.set(key, line);
  }
}

/** The entry's node of a mapping (null, a scalar or a list: undefined). `!reset` counts as absent. */
export function get(node: CNode | undefined, key: string): CNode | undefined {
  if (node?.t !== "map") return undefined;
  const v = node.entries.get(key)?.value;
  return v?.t === "reset" ? undefined : v;
}

export function getIn(node: CNode | undefined, ...keys: string[]): CNode | undefined {
  let n = node;
  for (const k of keys) n = get(n, k);
  return n;
}

/** A scalar's text; null for anything else (and for null). */
export function textOf(node: CNode | undefined): string | null {
  return node?.t === "str" ? node.value : null;
}

/** Values equal as Compose compares them when it drops duplicate list entries (where they are written does not count). */
export function sameValue(a: CNode, b: CNode): boolean {
  if (a.t !== b.t) return false;
  switch (a.t) {
    case "str":
      return b.t === "str" && a.value === b.value && !a.unresolved && !b.unresolved;
    case "seq":
      return b.t === "seq" && a.items.length === b.items.length && a.items.every((x, i) => sameValue(x, b.items[i] as CNode));
    case "map":
      return (
        b.t === "map" &&
        a.entries.size === b.entries.size &&
        [...a.entries].every(([k, e]) => {
          const o = b.entries.get(k);
          return o !== undefined && sameValue(e.value, o.value);
        })
      );
    case "reset":
      return true;
    default:
      a satisfies never;
      return false;
  }
}
