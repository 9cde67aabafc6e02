// A deliberately small Jinja expression subset (docs/playbooks.md#variables): variables and their
// attributes (`item.max_model_len`, `a['b']`), literals and lists, the filters of FILTERS, the tests
// `defined`/`undefined`/`none`/`number`/`string`/`mapping`/`sequence`, comparisons, `in`, `not`/`and`/
// `or`, `~` and `x if c else y`, and `.items()`/`.keys()`/`.values()` for a `{% for %}`. Anything else
// (lookups, arithmetic, filters not listed) is "unresolved": the gate says so (playbook/unresolved) and
// skips the setting rather than guess what Ansible would render.
// Every value keeps where it is written (./vars.ts): a setting rendered from a variable points at the
// variable's line.
import { keepPlaces, placeOf, type VarRef } from "./vars.js";
import { Failed, Parser, tokenize, type Node } from "./expr.js";

export { Failed };

export type Vars = Readonly<Record<string, unknown>>;

/** Variable layers, most specific first (loop item, task vars, ..., role defaults). */
export type Scope = readonly Vars[];

export type Resolved = { ok: true; value: unknown; at?: VarRef } | { ok: false; expr: string; reason: string };

/** One piece of a rendered string: literal text (`at` null) or what one `{{ }}` gave. */
export interface Part {
  text: string;
  at: VarRef | null;
  /** Offset of the piece in the rendered string. */
  col: number;
}

const MAX_DEPTH = 10;
const WHOLE = /^\s*\{\{([\s\S]*?)\}\}\s*$/;

/** What the filters read; named in every "unresolved" message about a filter. */
export const FILTERS = [
  "default",
  "d",
  "mandatory",
  "int",
  "float",
  "string",
  "trim",
  "lower",
  "upper",
  "bool",
  "quote",
  "join",
  "length",
] as const;

/** Renders a string. A string that is exactly one `{{ expr }}` keeps the expression's type (a list for `loop`). */
export function render(text: string, scope: Scope, depth = 0): Resolved {
  const noComments = text.replace(/\{#[\s\S]*?#\}/g, "");
  const whole = WHOLE.exec(noComments);
  if (whole && !(whole[1] as string).includes("}}") && !noComments.includes("{%")) {
    const v = evaluate((whole[1] as string).trim(), scope, depth);
    if (v instanceof Failed) return { ok: false, expr: noComments.trim(), reason: v.failed };
    return { ok: true, value: v.v, ...(v.at ? { at: v.at } : {}) };
  }
  const parts = renderParts(noComments, scope, depth);
  if (!parts.ok) return parts;
  return { ok: true, value: parts.parts.map((p) => p.text).join("") };
}

/** Renders a string piece by piece, so a caller can tell which part of it a variable wrote. */
export function renderParts(
  text: string,
  scope: Scope,
  depth = 0,
): { ok: true; parts: Part[] } | { ok: false; expr: string; reason: string } {
  if (text.includes("{%")) {
    const m = /\{%[\s\S]*?(%\}|$)/.exec(text);
    return { ok: false, expr: (m?.[0] ?? "{%").trim(), reason: "Jinja statements ({% %}) are not evaluated here" };
  }
  const parts: Part[] = [];
  let col = 0;
  const push = (t: string, at: VarRef | null): void => {
    if (t === "") return;
    parts.push({ text: t, at, col });
    col += t.length;
  };
  let rest = text.replace(/\{#[\s\S]*?#\}/g, "");
  for (;;) {
    const open = rest.indexOf("{{");
    if (open < 0) break;
    const close = rest.indexOf("}}", open + 2);
    if (close < 0) return { ok: false, expr: rest.slice(open).trim(), reason: "the {{ is never closed" };
    const expr = rest.slice(open + 2, close).trim();
    const v = evaluate(expr, scope, depth);
    if (v instanceof Failed) return { ok: false, expr: `{{ ${expr} }}`, reason: v.failed };
    push(rest.slice(0, open), null);
    push(asText(v.v), v.at);
    rest = rest.slice(close + 2);
  }
  push(rest, null);
  return { ok: true, parts };
}

/** Renders a value of any shape: strings are rendered, lists and mappings element by element (their places kept). */
export function renderValue(value: unknown, scope: Scope, depth = 0): Resolved {
  if (typeof value === "string") return render(value, scope, depth);
  if (!needsRender(value)) return { ok: true, value };
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const v of value) {
      const r = renderValue(v, scope, depth);
      if (!r.ok) return r;
      out.push(r.value);
    }
    keepPlaces(value, out);
    return { ok: true, value: out };
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as object)) {
    const r = renderValue(v, scope, depth);
    if (!r.ok) return r;
    out[k] = r.value;
  }
  keepPlaces(value as object, out);
  return { ok: true, value: out };
}

/** Whether a value holds a template anywhere (most vars do not: they are returned as they are). */
function needsRender(value: unknown, depth = 0): boolean {
  if (typeof value === "string") return value.includes("{{") || value.includes("{%");
  if (value === null || typeof value !== "object" || depth > 32) return false;
  return (Array.isArray(value) ? value : Object.values(value)).some((v) => needsRender(v, depth + 1));
}

/** How a rendered value reads as text: YAML `true` → `true`, a mapping → JSON. */
export function asText(v: unknown): string {
  if (v === null || v === undefined || v instanceof Undef) return "";
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean" || typeof v === "bigint") return String(v);
  return JSON.stringify(v);
}

/** A value and where it is written (null: a literal, or something computed). */
export interface Val {
  v: unknown;
  at: VarRef | null;
}

/** Jinja's undefined: what `default()` replaces and `is defined` tests; anywhere else it is unresolved. */
export class Undef {
  /** `why`: the variable was set (`{% set %}`) from something kvgate could not read. */
  constructor(
    readonly what: string,
    readonly why?: string,
  ) {}
}

/** The failure of using an undefined value. */
function undefFailure(u: Undef): Failed {
  return new Failed(u.why ?? notDefined(u.what));
}

function notDefined(what: string): string {
  return `\`${what}\` is not defined in the repository`;
}

/** Evaluates an expression; an undefined result is a failure (Ansible's undefined variable error). */
export function evaluate(expr: string, scope: Scope, depth = 0): Val | Failed {
  const v = evaluateLoose(expr, scope, depth);
  if (v instanceof Failed) return v;
  if (v.v instanceof Undef) return undefFailure(v.v);
  return v;
}

/** Evaluates an expression; undefined stays Undef (for `{% if x is defined %}` and the like). */
function evaluateLoose(expr: string, scope: Scope, depth = 0): Val | Failed {
  if (depth > MAX_DEPTH) return new Failed("the variables refer to each other in a loop");
  const tokens = tokenize(expr);
  if (tokens instanceof Failed) return tokens;
  const p = new Parser(tokens);
  const node = p.expression();
  if (node instanceof Failed) return node;
  if (!p.done()) return new Failed(`\`${expr}\` is not an expression kvgate reads`);
  return evalNode(node, scope, depth);
}

/** Jinja truthiness: none, false, 0, "" and empty lists and mappings are false. */
export function truthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === 0 || v === "") return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === "object") return Object.keys(v).length > 0;
  return true;
}

// ---- evaluation ----------------------------------------------------------------------------------

const lit = (v: unknown): Val => ({ v, at: null });

function textOf(n: Node): string {
  switch (n.t) {
    case "name":
      return n.name;
    case "get":
      return textOf(n.base) + n.text;
    default:
      return "the value";
  }
}

function evalNode(n: Node, scope: Scope, depth: number): Val | Failed {
  switch (n.t) {
    case "lit":
      return lit(n.v);
    case "list": {
      const out: unknown[] = [];
      for (const i of n.items) {
        const v = evalDefined(i, scope, depth);
        if (v instanceof Failed) return v;
        out.push(v.v);
      }
      return lit(out);
    }
    case "name":
      return lookup(n.name, scope, depth);
    case "get": {
      const base = n.base.t === "name" || n.base.t === "get" ? evalBase(n.base, scope, depth) : evalNode(n.base, scope, depth);
      if (base instanceof Failed || base.v instanceof Undef) return base;
      const key = evalDefined(n.key, scope, depth);
      if (key instanceof Failed) return key;
      return member(base.v, key.v, textOf(n), scope, depth);
    }
    case "call":
      return call(n, scope, depth);
    case "filter":
      return filter(n, scope, depth);
    case "test":
      return test(n, scope, depth);
    case "not": {
      const v = evalDefined(n.e, scope, depth);
      return v instanceof Failed ? v : lit(!truthy(v.v));
    }
    case "bool": {
      const a = evalDefined(n.a, scope, depth);
      if (a instanceof Failed) return a;
      if (n.op === "and" ? !truthy(a.v) : truthy(a.v)) return a;
      return evalDefined(n.b, scope, depth);
    }
    case "cmp":
      return compare(n, scope, depth);
    case "in": {
      const a = evalDefined(n.a, scope, depth);
      const b = a instanceof Failed ? a : evalDefined(n.b, scope, depth);
      if (a instanceof Failed) return a;
      if (b instanceof Failed) return b;
      let has: boolean;
      if (Array.isArray(b.v)) has = b.v.some((x) => x === a.v);
      else if (typeof b.v === "string") has = b.v.includes(asText(a.v));
      else if (b.v !== null && typeof b.v === "object") has = Object.prototype.hasOwnProperty.call(b.v, asText(a.v));
      else return new Failed("`in` needs a list, a string or a mapping");
      return lit(n.neg ? !has : has);
    }
    case "concat": {
      const a = evalDefined(n.a, scope, depth);
      if (a instanceof Failed) return a;
      const b = evalDefined(n.b, scope, depth);
      return b instanceof Failed ? b : lit(asText(a.v) + asText(b.v));
    }
    case "arith":
      return new Failed("expressions with operators are not evaluated");
    case "cond": {
      const c = evalDefined(n.cond, scope, depth);
      if (c instanceof Failed) return c;
      if (truthy(c.v)) return evalNode(n.then, scope, depth);
      return n.else ? evalNode(n.else, scope, depth) : lit("");
    }
    default:
      n satisfies never;
      return new Failed("not an expression kvgate reads");
  }
}

/** A value that must be defined (Ansible fails on an undefined variable anywhere but `default` and `is defined`). */
function evalDefined(n: Node, scope: Scope, depth: number): Val | Failed {
  const v = evalNode(n, scope, depth);
  if (v instanceof Failed) return v;
  return v.v instanceof Undef ? undefFailure(v.v) : v;
}

function lookup(name: string, scope: Scope, depth: number): Val | Failed {
  if (name === "omit") return new Failed("`omit` drops the parameter; the gate cannot tell what the module then does");
  for (const layer of scope) {
    if (Object.prototype.hasOwnProperty.call(layer, name)) return resolved(layer[name], placeOf(layer, name), scope, depth);
  }
  return lit(new Undef(name));
}

/**
 * The container a member is read from (`item` of `item.ctx`), not rendered as a whole: Ansible templates
 * a value when it is used, so `item.name` reads while `item.ctx` is a lookup kvgate cannot run. A
 * string that is a template (`seats: "{{ other }}"`) is rendered, as the member it leads to is.
 */
function evalBase(n: Node, scope: Scope, depth: number): Val | Failed {
  if (n.t === "name") {
    const layer = scope.find((l) => Object.prototype.hasOwnProperty.call(l, n.name));
    if (layer === undefined || n.name === "omit") return evalNode(n, scope, depth);
    const v = layer[n.name];
    return typeof v === "string" ? resolved(v, placeOf(layer, n.name), scope, depth) : { v, at: placeOf(layer, n.name) };
  }
  if (n.t !== "get") return evalNode(n, scope, depth);
  const base = evalBase(n.base, scope, depth);
  if (base instanceof Failed || base.v instanceof Undef) return base;
  const key = evalDefined(n.key, scope, depth);
  if (key instanceof Failed) return key;
  const b = base.v;
  const k = Array.isArray(b) && typeof key.v === "string" && /^\d+$/.test(key.v) ? Number(key.v) : key.v;
  const own = Array.isArray(b)
    ? typeof k === "number" && k < b.length
    : b !== null && typeof b === "object" && Object.prototype.hasOwnProperty.call(b, asText(k));
  if (!own) return member(b, key.v, textOf(n), scope, depth);
  const v: unknown = Array.isArray(b) ? (b as unknown[])[k as number] : (b as Record<string, unknown>)[asText(k)];
  const at = Array.isArray(b) ? null : placeOf(b, asText(k));
  return typeof v === "string" ? resolved(v, at, scope, depth) : { v, at };
}

/** A variable's value may itself be a template (`ctx: "{{ base_ctx | int }}"`): then it lives where that one does. */
function resolved(v: unknown, at: VarRef | null, scope: Scope, depth: number): Val | Failed {
  if (!needsRender(v)) return { v, at };
  const r = renderValue(v, scope, depth + 1);
  if (!r.ok) return new Failed(r.reason);
  return { v: r.value, at: r.at ?? at };
}

function member(base: unknown, key: unknown, text: string, scope: Scope, depth: number): Val | Failed {
  if (Array.isArray(base) && typeof key === "number")
    return key < base.length ? resolved(base[key], null, scope, depth) : lit(new Undef(text));
  if (Array.isArray(base) && typeof key === "string" && /^\d+$/.test(key))
    return Number(key) < base.length ? resolved(base[Number(key)], null, scope, depth) : lit(new Undef(text));
  const k = asText(key);
  if (base !== null && typeof base === "object" && Object.prototype.hasOwnProperty.call(base, k))
    return resolved((base as Record<string, unknown>)[k], placeOf(base, k), scope, depth);
  return lit(new Undef(text));
}

function call(n: Extract<Node, { t: "call" }>, scope: Scope, depth: number): Val | Failed {
  // `.items()` and friends, for `{% for k, v in env.items() %}`; every other call runs only in Ansible.
  if (n.base.t === "get" && n.base.key.t === "lit" && n.args.length === 0) {
    const method = String(n.base.key.v);
    if (method === "items" || method === "keys" || method === "values") {
      const obj = evalDefined(n.base.base, scope, depth);
      if (obj instanceof Failed) return obj;
      if (obj.v === null || typeof obj.v !== "object" || Array.isArray(obj.v)) return new Failed(`\`.${method}()\` needs a mapping`);
      const entries = Object.entries(obj.v as Record<string, unknown>);
      if (method === "keys") return lit(entries.map(([k]) => k));
      if (method === "values") return lit(entries.map(([, v]) => v));
      // Each pair keeps its value's place: `{{ v }}` of `{% for k, v in env.items() %}` is the key's line.
      const pairs = entries.map(([k, v]) => {
        const pair: unknown[] = [k, v];
        const at = placeOf(obj.v, k);
        if (at) setPairPlace(pair, at);
        return pair;
      });
      return lit(pairs);
    }
  }
  return new Failed("lookups and function calls run only inside Ansible");
}

const pairPlaces = new WeakMap<object, VarRef>();
function setPairPlace(pair: object, at: VarRef): void {
  pairPlaces.set(pair, at);
}
/** Where the value of a `(key, value)` pair of `.items()` is written. */
export function pairPlace(pair: unknown): VarRef | null {
  return pair !== null && typeof pair === "object" ? (pairPlaces.get(pair) ?? null) : null;
}

function filter(n: Extract<Node, { t: "filter" }>, scope: Scope, depth: number): Val | Failed {
  const base = evalNode(n.base, scope, depth);
  if (base instanceof Failed) return base;
  const v = base.v;
  const arg = (i: number): Val | Failed | undefined => (n.args[i] ? evalDefined(n.args[i], scope, depth) : undefined);
  const keep = (x: unknown): Val => ({ v: x, at: base.at });
  switch (n.name) {
    case "default":
    case "d": {
      const orFalsy = n.args[1] ? evalDefined(n.args[1], scope, depth) : lit(false);
      if (orFalsy instanceof Failed) return orFalsy;
      const empty = v instanceof Undef || (truthy(orFalsy.v) && !truthy(v));
      if (!empty) return base;
      return arg(0) ?? lit("");
    }
    case "mandatory":
      return v instanceof Undef ? undefFailure(v) : base;
    default:
      break;
  }
  if (v instanceof Undef) return base;
  switch (n.name) {
    case "int":
    case "float": {
      const num = typeof v === "number" ? v : typeof v === "boolean" ? Number(v) : Number(asText(v).trim());
      if (!Number.isFinite(num) || (typeof v === "string" && v.trim() === ""))
        return new Failed(`\`${asText(v)}\` is not a number, so \`| ${n.name}\` would render 0`);
      return keep(n.name === "int" ? Math.trunc(num) : num);
    }
    case "string":
      return keep(asText(v));
    case "trim":
      return keep(asText(v).trim());
    case "lower":
      return keep(asText(v).toLowerCase());
    case "upper":
      return keep(asText(v).toUpperCase());
    case "bool":
      return keep(typeof v === "boolean" ? v : /^(yes|on|1|true|y)$/i.test(asText(v).trim()));
    case "quote":
      return keep(shellQuote(asText(v)));
    case "join": {
      if (!Array.isArray(v)) return new Failed(`\`| join\` needs a list`);
      const sep = arg(0);
      if (sep instanceof Failed) return sep;
      return lit(v.map(asText).join(sep ? asText(sep.v) : ""));
    }
    case "length":
      if (typeof v === "string" || Array.isArray(v)) return lit(v.length);
      if (v !== null && typeof v === "object") return lit(Object.keys(v).length);
      return new Failed("`| length` needs a list, a string or a mapping");
    default:
      return new Failed(`the filter \`${n.name}\` is not one kvgate reads (${FILTERS.join(", ")})`);
  }
}

/** Python's shlex.quote, which Ansible's `quote` filter is. */
function shellQuote(s: string): string {
  if (s === "") return "''";
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'"'"'`)}'`;
}

/** Whether a variable (or its attribute) exists, without rendering its value: `x is defined` is true of a
 *  variable whose value is a lookup kvgate cannot run. Null when the expression is not a plain path. */
function exists(n: Node, scope: Scope, depth: number): boolean | null {
  if (n.t === "name") return scope.some((layer) => Object.prototype.hasOwnProperty.call(layer, n.name));
  if (n.t !== "get") return null;
  const base = evalNode(n.base, scope, depth);
  if (base instanceof Failed) return null;
  if (base.v instanceof Undef) return false;
  const key = evalDefined(n.key, scope, depth);
  if (key instanceof Failed) return null;
  const v = base.v;
  if (Array.isArray(v)) return Number(key.v) < v.length;
  return v !== null && typeof v === "object" && Object.prototype.hasOwnProperty.call(v, asText(key.v));
}

function test(n: Extract<Node, { t: "test" }>, scope: Scope, depth: number): Val | Failed {
  if (n.name === "defined" || n.name === "undefined") {
    const known = exists(n.base, scope, depth);
    if (known !== null) return lit(n.neg !== (n.name === "defined" ? known : !known));
  }
  const base = evalNode(n.base, scope, depth);
  if (base instanceof Failed) return base;
  const v = base.v;
  let r: boolean;
  switch (n.name) {
    case "defined":
      r = !(v instanceof Undef);
      break;
    case "undefined":
      r = v instanceof Undef;
      break;
    default: {
      if (v instanceof Undef) return undefFailure(v);
      const kinds: Record<string, (x: unknown) => boolean> = {
        none: (x) => x === null,
        number: (x) => typeof x === "number",
        string: (x) => typeof x === "string",
        mapping: (x) => x !== null && typeof x === "object" && !Array.isArray(x),
        sequence: (x) => Array.isArray(x) || typeof x === "string",
      };
      const t = kinds[n.name];
      if (!t) return new Failed(`the test \`is ${n.name}\` is not one kvgate reads (defined, undefined, ${Object.keys(kinds).join(", ")})`);
      r = t(v);
    }
  }
  return lit(n.neg ? !r : r);
}

function compare(n: Extract<Node, { t: "cmp" }>, scope: Scope, depth: number): Val | Failed {
  const a = evalDefined(n.a, scope, depth);
  if (a instanceof Failed) return a;
  const b = evalDefined(n.b, scope, depth);
  if (b instanceof Failed) return b;
  if (n.op === "==" || n.op === "!=") {
    const eq = a.v === b.v || (typeof a.v === "object" && JSON.stringify(a.v) === JSON.stringify(b.v));
    return lit(n.op === "==" ? eq : !eq);
  }
  const both = [a.v, b.v];
  if (!both.every((x) => typeof x === "number") && !both.every((x) => typeof x === "string"))
    return new Failed(`\`${n.op}\` compares two numbers or two strings`);
  const [x, y] = both as [number, number];
  return lit(n.op === "<" ? x < y : n.op === ">" ? x > y : n.op === "<=" ? x <= y : x >= y);
}
