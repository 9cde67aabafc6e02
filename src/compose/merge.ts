// Compose's merge rules, used for `extends` (the service over the one it extends) and for the
// override file (compose.override.yaml over compose.yaml). Compose runs both through one merge
// (compose-go `override.ExtendService` calls the same `MergeYaml` as multi-file merging):
//   - mappings merge key by key (compose spec "Merge" § Mapping; services § extends "Mappings");
//   - sequences append the override's items, identical items once (§ Sequence; § extends "Sequences");
//   - scalars: the override wins; a null override keeps the base (§ extends "Scalars");
//   - `command`, `entrypoint`, `healthcheck.test` are replaced, never appended (§ Exceptions, Shell commands);
//   - `environment` merges by variable, map or list form alike (§ extends "Mappings", the cli/common example);
//   - `env_file` appends (list syntax; § extends "Sequences", duplicates kept there, dropped by compose-go);
//   - `!reset` removes the value, `!override` replaces it whole (§ Reset value, § Replace value).
// Neither input is changed: an anchor shared by several services stays as written.
import type { CEntry, CNode } from "./tree.js";
import { sameValue } from "./tree.js";

type Path = readonly string[];

const REPLACED = new Set(["command", "entrypoint"]);

/** `over` laid on `base` at `path` (e.g. ["services", "coder"]); undefined when the result is removed. */
export function mergeNode(base: CNode | undefined, over: CNode, path: Path): CNode | undefined {
  if (over.t === "reset") return undefined;
  if (base === undefined || base.t === "reset" || ("override" in over && over.override)) return over;
  const inService = path.length === 3 && path[0] === "services";
  const key = path[path.length - 1];
  if (inService && REPLACED.has(key as string)) return over;
  if (path.length === 4 && path[0] === "services" && path[2] === "healthcheck" && key === "test") return over;
  if (inService && key === "environment") return mergeEnvironment(base, over);
  if (inService && key === "env_file") return appendUnique(asSequence(base), asSequence(over), over);
  if (over.t === "str" && over.value === null && !over.unresolved) return base;
  if (base.t === "map" && over.t === "map") return mergeMaps(base, over, path);
  if (base.t === "seq" && over.t === "seq") return appendUnique(base.items, over.items, over);
  return over;
}

function mergeMaps(base: Extract<CNode, { t: "map" }>, over: Extract<CNode, { t: "map" }>, path: Path): CNode {
  const entries = new Map<string, CEntry>(base.entries);
  for (const [k, e] of over.entries) {
    const prev = entries.get(k);
    const merged = mergeNode(prev?.value, e.value, [...path, k]);
    // A key keeps the line where it was first written; its value carries its own lines.
    if (merged === undefined) entries.delete(k);
    else entries.set(k, { keyPos: prev?.keyPos ?? e.keyPos, value: merged });
  }
  return { t: "map", entries, pos: base.pos };
}

function asSequence(n: CNode): CNode[] {
  if (n.t === "seq") return n.items;
  if (n.t === "str" && n.value === null && !n.unresolved) return [];
  return [n];
}

function appendUnique(base: readonly CNode[], over: readonly CNode[], at: CNode): CNode {
  const items = [...base];
  for (const o of over) if (!items.some((b) => sameValue(b, o))) items.push(o);
  return { t: "seq", items, pos: at.pos };
}

/** One environment entry: `KEY=VALUE`, or a bare `KEY` (value null: taken from the environment). */
export interface EnvItem {
  key: string;
  value: string | null;
  /** Where the value is written (the key's line for a bare key). */
  node: CNode;
  /** `KEY: !reset null` in an override: the key is removed. */
  reset?: boolean;
}

/** The entries of `environment` (map or list form), in order; a later entry of a key replaces the earlier. */
export function envItemsOf(n: CNode | undefined): EnvItem[] {
  return rawEnvItems(n).filter((i) => !i.reset);
}

function rawEnvItems(n: CNode | undefined): EnvItem[] {
  const out: EnvItem[] = [];
  if (n?.t === "map") {
    for (const [key, e] of n.entries) {
      const v = e.value;
      if (v.t === "reset") {
        out.push({ key, value: null, node: v, reset: true });
        continue;
      }
      if (v.t === "str") out.push({ key, value: v.value, node: v.value === null && !v.unresolved ? { ...v, pos: e.keyPos } : v });
    }
  } else if (n?.t === "seq") {
    for (const item of n.items) {
      if (item.t !== "str") continue;
      if (item.value === null) {
        // An unresolved `KEY=${VAR}` item: the key is still the text before `=` as written.
        const written = item.span ? item.span.src.text.slice(item.span.start, item.span.end) : "";
        const key = /^\s*["']?([A-Za-z_][A-Za-z0-9_.-]*)=/.exec(written)?.[1];
        if (key && item.unresolved) out.push({ key, value: null, node: item });
        continue;
      }
      const eq = item.value.indexOf("=");
      out.push(
        eq < 0
          ? { key: item.value.trim(), value: null, node: item }
          : { key: item.value.slice(0, eq), value: item.value.slice(eq + 1), node: item },
      );
    }
  }
  return out;
}

/** compose-go mergeKeyValueSequence: base entries, then the override's; a key set again is replaced in place. */
function mergeEnvironment(base: CNode, over: CNode): CNode {
  const items: EnvItem[] = [];
  for (const item of [...rawEnvItems(base), ...rawEnvItems(over)]) {
    const at = items.findIndex((i) => i.key === item.key);
    if (item.reset) {
      if (at >= 0) items.splice(at, 1);
    } else if (at >= 0) items[at] = item;
    else items.push(item);
  }
  return {
    t: "map",
    entries: new Map(items.map((i) => [i.key, { keyPos: i.node.pos, value: i.node.t === "str" ? { ...i.node, value: i.value } : i.node }])),
    pos: over.pos,
  };
}
