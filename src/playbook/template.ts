// A deliberately small Jinja subset: `{{ name }}`, `{{ a.b }}`, `{{ a['b'] }}`, literals, and the
// filters `default(x)`/`d(x)`, `int`, `string`, `trim`. Anything else is "unresolved": the gate
// says so (playbook/unresolved) and skips the setting rather than guessing what Ansible would render.

export type Vars = Readonly<Record<string, unknown>>;

/** Variable layers, most specific first (loop item, task vars, ..., play vars). */
export type Scope = readonly Vars[];

export type Resolved = { ok: true; value: unknown } | { ok: false; expr: string; reason: string };

const MAX_DEPTH = 10;
const WHOLE = /^\s*\{\{([\s\S]*?)\}\}\s*$/;

/** Renders a string. A string that is exactly one `{{ expr }}` keeps the expression's type (a list for `loop`). */
export function render(text: string, scope: Scope, depth = 0): Resolved {
  const noComments = text.replace(/\{#[\s\S]*?#\}/g, "");
  if (noComments.includes("{%")) {
    const m = /\{%[\s\S]*?(%\}|$)/.exec(noComments);
    return { ok: false, expr: (m?.[0] ?? "{%").trim(), reason: "Jinja statements ({% %}) are not evaluated" };
  }
  const whole = WHOLE.exec(noComments);
  if (whole && !(whole[1] as string).includes("}}")) return evalExpr((whole[1] as string).trim(), scope, depth);
  let out = "";
  let rest = noComments;
  for (;;) {
    const open = rest.indexOf("{{");
    if (open < 0) break;
    const close = rest.indexOf("}}", open + 2);
    if (close < 0) return { ok: false, expr: rest.slice(open).trim(), reason: "the {{ is never closed" };
    const r = evalExpr(rest.slice(open + 2, close).trim(), scope, depth);
    if (!r.ok) return r;
    out += rest.slice(0, open) + asText(r.value);
    rest = rest.slice(close + 2);
  }
  return { ok: true, value: out + rest };
}

/** Renders a value of any shape: strings are rendered, lists and mappings element by element. */
export function renderValue(value: unknown, scope: Scope, depth = 0): Resolved {
  if (typeof value === "string") return render(value, scope, depth);
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const v of value) {
      const r = renderValue(v, scope, depth);
      if (!r.ok) return r;
      out.push(r.value);
    }
    return { ok: true, value: out };
  }
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const r = renderValue(v, scope, depth);
      if (!r.ok) return r;
      out[k] = r.value;
    }
    return { ok: true, value: out };
  }
  return { ok: true, value };
}

/** How a rendered value reads as env text: YAML `true` → `true`, a mapping → JSON. */
export function asText(v: unknown): string {
  if (v === null || v === undefined) return "";
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean" || typeof v === "bigint") return String(v);
  return JSON.stringify(v);
}

const UNDEFINED = Symbol("undefined");
/** Any value, or UNDEFINED: a name that does not resolve (Jinja's undefined, which `default()` replaces). */
type Value = unknown;

function evalExpr(expr: string, scope: Scope, depth: number): Resolved {
  const whole = `{{ ${expr} }}`;
  if (depth > MAX_DEPTH) return { ok: false, expr: whole, reason: "the variables refer to each other in a loop" };
  const parts = splitTop(expr, "|");
  if (!parts) return { ok: false, expr: whole, reason: "the expression is not one kvgate reads" };
  const [head, ...filters] = parts.map((p) => p.trim());
  let v = primary(head ?? "", scope, depth);
  if (v instanceof Failed) return { ok: false, expr: whole, reason: v.failed };
  for (const f of filters) {
    const r = applyFilter(f, v, scope, depth);
    if (r instanceof Failed) return { ok: false, expr: whole, reason: r.failed };
    v = r.value;
  }
  if (v === UNDEFINED) return { ok: false, expr: whole, reason: `\`${head}\` is not defined in the play's vars or vars_files` };
  return { ok: true, value: v };
}

/** A class, not a shape, so a variable holding `{ failed: ... }` is never mistaken for a failure. */
class Failed {
  constructor(readonly failed: string) {}
}

// Returns a Failed (an instance, told apart with instanceof) when the expression cannot be read.
function primary(text: string, scope: Scope, depth: number): Value {
  const t = text.trim();
  if (/^'[^']*'$/.test(t) || /^"[^"]*"$/.test(t)) return t.slice(1, -1);
  if (/^-?\d+(\.\d+)?$/.test(t)) return Number(t);
  if (t === "true" || t === "True") return true;
  if (t === "false" || t === "False") return false;
  if (t === "none" || t === "None") return null;
  if (t === "omit") return new Failed("`omit` drops the parameter; the gate cannot tell what the module then does");
  const path = parsePath(t);
  if (!path) {
    if (/^[A-Za-z_][\w.]*\s*\(/.test(t)) return new Failed("lookups and function calls run only inside Ansible");
    if (/[+\-*/~<>=!]|\b(if|and|or|not|in)\b/.test(t)) return new Failed("expressions with operators are not evaluated");
    return new Failed(`\`${t}\` is not a plain variable or literal`);
  }
  const [name, ...rest] = path;
  let v: Value = UNDEFINED;
  for (const layer of scope) {
    if (Object.prototype.hasOwnProperty.call(layer, name as string)) {
      v = layer[name as string];
      break;
    }
  }
  for (const key of rest) {
    if (v === UNDEFINED) break;
    v =
      v !== null && typeof v === "object" && Object.prototype.hasOwnProperty.call(v, key) ? (v as Record<string, unknown>)[key] : UNDEFINED;
  }
  if (v === UNDEFINED) return UNDEFINED;
  // A variable's value may itself be a template (`ctx: "{{ base_ctx | int }}"`).
  const r = renderValue(v, scope, depth + 1);
  return r.ok ? r.value : new Failed(r.reason);
}

/** `a.b['c'][0]` → ["a", "b", "c", "0"]; null when it is not a plain path. */
function parsePath(t: string): string[] | null {
  const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(t);
  if (!m) return null;
  const out = [m[0]];
  let rest = t.slice(m[0].length);
  while (rest !== "") {
    const dot = /^\.([A-Za-z_][A-Za-z0-9_]*|\d+)/.exec(rest);
    const idx = /^\[\s*(?:'([^']*)'|"([^"]*)"|(\d+))\s*\]/.exec(rest);
    if (dot) {
      out.push(dot[1] as string);
      rest = rest.slice(dot[0].length);
    } else if (idx) {
      out.push((idx[1] ?? idx[2] ?? idx[3]) as string);
      rest = rest.slice(idx[0].length);
    } else return null;
  }
  return out;
}

function applyFilter(f: string, v: Value, scope: Scope, depth: number): { value: Value } | Failed {
  const m = /^([A-Za-z_]+)\s*(?:\(([\s\S]*)\))?$/.exec(f);
  if (!m) return new Failed(`the filter \`${f}\` is not one kvgate reads (default, int, string, trim)`);
  const name = m[1] as string;
  const args = m[2] === undefined ? [] : (splitTop(m[2], ",") ?? [m[2]]).map((a) => a.trim()).filter((a) => a !== "");
  switch (name) {
    case "default":
    case "d": {
      // default(x, true) also replaces empty/false values.
      const orFalsy = args[1] === "true" || args[1] === "True";
      const empty = v === UNDEFINED || (orFalsy && (v === "" || v === false || v === null || v === 0));
      if (!empty) return { value: v };
      const a = primary(args[0] ?? "''", scope, depth);
      if (a instanceof Failed) return a;
      if (a === UNDEFINED) return new Failed(`the default \`${args[0]}\` is not defined either`);
      return { value: a };
    }
    case "int": {
      if (v === UNDEFINED) return { value: v };
      const n = typeof v === "number" ? v : Number(String(v).trim());
      if (!Number.isFinite(n)) return new Failed(`\`${asText(v)}\` is not a number, so \`| int\` would render 0`);
      return { value: Math.trunc(n) };
    }
    case "string":
      return { value: v === UNDEFINED ? v : asText(v) };
    case "trim":
      return { value: v === UNDEFINED ? v : asText(v).trim() };
    default:
      return new Failed(`the filter \`${name}\` is not one kvgate reads (default, int, string, trim)`);
  }
}

/** Splits on a separator outside quotes and brackets; null when the quotes or brackets do not balance. */
function splitTop(s: string, sep: string): string[] | null {
  const out: string[] = [];
  let depth = 0;
  let quote: string | null = null;
  let cur = "";
  for (const ch of s) {
    if (quote) {
      if (ch === quote) quote = null;
    } else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === "(" || ch === "[") depth++;
    else if (ch === ")" || ch === "]") depth--;
    else if (ch === sep && depth === 0) {
      out.push(cur);
      cur = "";
      continue;
    }
    cur += ch;
  }
  if (quote || depth !== 0) return null;
  out.push(cur);
  return out;
}
