// A Kubernetes YAML document as a plain tree whose every node keeps the file and line it is written
// on (anchors, aliases and merge keys followed), so a finding about a value points at its line. Built
// under a node budget: an alias bomb ends the walk instead of the process.
import { isAlias, isMap, isPair, isScalar, isSeq, Scalar, type Document, type LineCounter, type Node } from "yaml";
import { valueText } from "../units/text.js";

export interface Pos {
  file: string;
  line: number;
}

export type KNode =
  /** A scalar as text (numbers and booleans as written); null for YAML null. `block`: a `|` or `>` scalar, whose text starts on the next line. */
  | { t: "str"; value: string | null; pos: Pos; block?: boolean; quoted?: boolean }
  | { t: "seq"; items: KNode[]; pos: Pos }
  | { t: "map"; entries: Map<string, { keyPos: Pos; value: KNode }>; pos: Pos };

export type KMap = Extract<KNode, { t: "map" }>;

/** Nesting past this is no Kubernetes object; the walk stops there. */
const MAX_DEPTH = 100;

export interface TreeBudget {
  /** Nodes left to build for the whole file (aliases counted each time they are followed). */
  nodes: number;
  /** Set when the budget or the depth ran out: the file is refused, not half read. */
  exceeded: string | null;
}

export function treeOfDocument(doc: Document.Parsed, file: string, lines: LineCounter, budget: TreeBudget): KNode | null {
  const lineOf = (n: unknown, fallback = 1): number => {
    const r = (n as Node | null)?.range;
    return r ? lines.linePos(r[0]).line : fallback;
  };
  const deref = (n: unknown): unknown => {
    let x = n;
    for (let i = 0; i < 16 && isAlias(x); i++) x = x.resolve(doc);
    return x;
  };
  const convert = (node: unknown, depth: number, fallback: number): KNode | null => {
    const n = deref(node);
    if (n === null || n === undefined || budget.exceeded) return null;
    if (--budget.nodes < 0) {
      budget.exceeded = "its aliases expand to more nodes than any manifest holds (an alias bomb)";
      return null;
    }
    if (depth > MAX_DEPTH) {
      budget.exceeded = `it is nested more than ${MAX_DEPTH} levels deep`;
      return null;
    }
    const pos = { file, line: lineOf(n, fallback) };
    if (isScalar(n)) {
      const v = n.value;
      const value = v === null || v === undefined ? null : typeof v === "string" ? v : (n.source ?? valueText(v));
      const block = n.type === Scalar.BLOCK_LITERAL || n.type === Scalar.BLOCK_FOLDED;
      const quoted = n.type === Scalar.QUOTE_DOUBLE || n.type === Scalar.QUOTE_SINGLE;
      return { t: "str", value, pos, ...(block ? { block } : {}), ...(quoted ? { quoted } : {}) };
    }
    if (isSeq(n)) {
      const items: KNode[] = [];
      for (const item of n.items) {
        const c = convert(item, depth + 1, pos.line);
        items.push(c ?? { t: "str", value: null, pos: { file, line: lineOf(deref(item), pos.line) } });
      }
      return { t: "seq", items, pos };
    }
    if (isMap(n)) {
      const entries = new Map<string, { keyPos: Pos; value: KNode }>();
      const merged: [string, { keyPos: Pos; value: KNode }][] = [];
      for (const pair of n.items) {
        if (!isPair(pair)) continue;
        const keyNode = pair.key as Node | null;
        const key = isScalar(keyNode) ? (typeof keyNode.value === "symbol" ? "<<" : valueText(keyNode.value)) : String(keyNode);
        if (key === "<<") {
          // A merge key: the merged maps' entries, explicit keys winning.
          const src = deref(pair.value);
          for (const s of isSeq(src) ? src.items : [src]) {
            const m = convert(s, depth + 1, pos.line);
            if (m?.t === "map") merged.push(...m.entries);
          }
          continue;
        }
        const keyPos = { file, line: lineOf(keyNode, pos.line) };
        const value = convert(pair.value, depth + 1, keyPos.line) ?? { t: "str" as const, value: null, pos: keyPos };
        if (!entries.has(key)) entries.set(key, { keyPos, value });
      }
      for (const [k, e] of merged) if (!entries.has(k)) entries.set(k, e);
      return { t: "map", entries, pos };
    }
    return null;
  };
  return convert(doc.contents, 0, 1);
}

/** The entry's node of a mapping; undefined for anything else. */
export function get(node: KNode | undefined, key: string): KNode | undefined {
  return node?.t === "map" ? node.entries.get(key)?.value : undefined;
}

export function getIn(node: KNode | undefined, ...keys: string[]): KNode | undefined {
  let n = node;
  for (const k of keys) n = get(n, k);
  return n;
}

/** A scalar's text; null for anything else (and for null). */
export function textOf(node: KNode | undefined): string | null {
  return node?.t === "str" ? node.value : null;
}

export function itemsOf(node: KNode | undefined): KNode[] {
  return node?.t === "seq" ? node.items : [];
}

export function entriesOf(node: KNode | undefined): [string, { keyPos: Pos; value: KNode }][] {
  return node?.t === "map" ? [...node.entries] : [];
}

/** Where a key is written in a mapping (its key's line), else the mapping's own line. */
export function keyPosOf(node: KNode | undefined, key: string): Pos | null {
  return node?.t === "map" ? (node.entries.get(key)?.keyPos ?? null) : null;
}
