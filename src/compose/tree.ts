// A compose file as a plain tree whose every value keeps the file and line it is written on, with
// YAML anchors, aliases and merge keys (`<<: *default`, `<<: [*a, *b]`) followed and every scalar
// interpolated (built by yaml.ts). Compose interpolates each file before merging files (compose spec
// "Interpolation"), so a tree is built per file with that file's variables, and the merge rules
// (merge.ts) work on trees from several files without losing where each value came from.
import type { SourceText } from "./source.js";

export interface Pos {
  file: string;
  line: number;
}

/** Where a string scalar is written, so each shell word of a command can be given its own line. */
interface Span {
  src: SourceText;
  start: number;
  end: number;
}

interface Unresolved {
  vars: string[];
  /** The `${VAR:?message}` text of a required variable. */
  required?: string;
  /** The text with each unknown expansion marked (interpolate.ts UNKNOWN_OPEN/CLOSE): what is known
   *  of a value (a command's other words). */
  partial?: string;
}

/** What YAML makes of a plain scalar (go-yaml's resolution, which compose-go reads with): the JSON
 *  schema checks types, so an unquoted `8000` in a list of strings is an integer, not text. */
export type ScalarType = "int" | "float" | "bool";

export type CNode =
  /** A scalar as text (numbers and booleans as written); null for YAML null. `type`: absent for a string. */
  | { t: "str"; value: string | null; pos: Pos; unresolved?: Unresolved; span?: Span; override?: boolean; type?: ScalarType }
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
