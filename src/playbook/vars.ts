// Variables that remember where they are written. A value a template renders from `max_model_len:
// 32768` in host_vars/gpu1.yml is that line's, so a finding about it points there and `kvgate check
// --fix` edits it there (docs/playbooks.md#variables), not the template that only names the variable.
// The places ride beside the plain values (a WeakMap from each mapping read to its keys' places), so
// the renderer's values stay plain JS and a copy made while rendering carries them over.
import { lineOf, pairsOf, isSequence, itemsOf, isMapping, deref, type YamlFile } from "./nodes.js";
import { isScalar } from "yaml";

/** Where a variable's value is written: the file, the line of its key, and the key as spelled there. */
export interface VarRef {
  file: string;
  line: number;
  name: string;
  /** Written as YAML (`name: value`); false for an INI inventory's `name=value`. */
  yaml: boolean;
}

const places = new WeakMap<object, Map<string, VarRef>>();

/** The place of `obj[key]`, when `obj` was read from a file. */
export function placeOf(obj: unknown, key: string): VarRef | null {
  return obj !== null && typeof obj === "object" ? (places.get(obj)?.get(key) ?? null) : null;
}

/** Records where the keys of `obj` are written (an INI inventory's values). */
export function setPlaces(obj: object, map: Map<string, VarRef>): void {
  places.set(obj, map);
}

/** `to` is a rendered copy of `from`: its keys are written where `from`'s are. */
export function keepPlaces(from: object, to: object): void {
  const p = places.get(from);
  if (p) places.set(to, p);
}

/** Plain JS for a node, as nodes.ts toJs, with every mapping's keys placed (aliases and merges followed). */
export function located(file: YamlFile, node: unknown, depth = 0): unknown {
  const n = deref(file, node);
  if (n === null || n === undefined || depth > 32) return null;
  if (isScalar(n)) return n.value;
  if (isSequence(file, n)) return itemsOf(file, n).map((i) => located(file, i, depth + 1));
  if (!isMapping(file, n)) return null;
  const out: Record<string, unknown> = {};
  const map = new Map<string, VarRef>();
  for (const [k, v, keyNode] of pairsOf(file, n)) {
    out[k] = located(file, v, depth + 1);
    map.set(k, { file: file.path, line: lineOf(file, keyNode), name: k, yaml: true });
  }
  places.set(out, map);
  return out;
}

/** A vars mapping (a vars file, `vars:`), placed; anything else is no variables. */
export function varsOf(file: YamlFile, node: unknown): Record<string, unknown> {
  const v = located(file, node);
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/** Copies `source`'s values into `target`, later over earlier, each with its place (`places`, else `source`'s own). */
export function assignPlaced(
  target: Record<string, unknown>,
  source: Readonly<Record<string, unknown>>,
  at?: ReadonlyMap<string, VarRef>,
): void {
  const merged = new Map(places_(target));
  for (const [k, v] of Object.entries(source)) {
    target[k] = v;
    const p = at?.get(k) ?? placeOf(source, k);
    if (p) merged.set(k, p);
    else merged.delete(k);
  }
  places.set(target, merged);
}

function places_(obj: object): Map<string, VarRef> {
  return places.get(obj) ?? new Map<string, VarRef>();
}
