// Compose interpolation (compose spec "Interpolation"), as compose-go's template.go does it: `$VAR`,
// `${VAR}`, `${VAR:-default}`, `${VAR-default}`, `${VAR:?error}`, `${VAR?error}`, `${VAR:+replacement}`,
// `${VAR+replacement}`, nested defaults, and `$$` for a literal `$`. Variables come from the `.env`
// beside the compose file, as `docker compose config` reads them in a clean shell. Where Docker would
// take a variable from the deploy host's shell (a plain `${VAR}` that the `.env` does not set), kvgate
// cannot know the value: the result is unresolved, never an empty string or a guess; `partial` then
// keeps the text with each unknown part marked, so a command's other words are still read.
//
// Where a `${…}` ends follows template.go: its pattern takes `.*` up to the last `}` of the line, and
// getFirstBraceClosingIndex then cuts at the first `}` that balances the braces (any `{` counts, the
// character after it skipped); the rest of the match is interpolated on its own. So
// `${A:-{"max_new_tokens":1024}}` is A's value when A is set, with no stray `}`.

/** What a variable is to kvgate: set (maybe empty), unset, or unknown (its own value was unresolved). */
export type VarValue = { state: "set"; value: string } | { state: "unset" } | { state: "unknown"; vars: string[] };

export type Lookup = (name: string) => VarValue;

export type Interpolated =
  | { ok: true; value: string }
  /** `vars`: the variables that stayed unknown; `required`: the `:?`/`?` message of a required one;
   *  `partial`: the text with each unknown expansion as UNKNOWN_OPEN name UNKNOWN_CLOSE. */
  | { ok: false; kind: "unresolved"; vars: string[]; required?: string; partial: string }
  /** Text Docker refuses to load (`${` never closed, `${1X}`, `${VAR/a/b}`). */
  | { ok: false; kind: "invalid"; message: string };

/** Marks an unknown expansion in `partial` (characters no compose value holds). */
export const UNKNOWN_OPEN = "\u0001";
export const UNKNOWN_CLOSE = "\u0002";

const NAME = /^[_a-zA-Z][_a-zA-Z0-9]*/;

export const UNSET: Lookup = () => ({ state: "unset" });

/** Interpolates one YAML value (or an env_file value) the way Compose does. */
export function interpolate(text: string, lookup: Lookup): Interpolated {
  if (!text.includes("$")) return { ok: true, value: text };
  const state: State = { vars: [], required: undefined, invalid: undefined };
  const value = expand(text, lookup, state);
  if (state.invalid !== undefined) return { ok: false, kind: "invalid", message: state.invalid };
  if (state.vars.length > 0) {
    return {
      ok: false,
      kind: "unresolved",
      vars: [...new Set(state.vars)],
      ...(state.required !== undefined ? { required: state.required } : {}),
      partial: value,
    };
  }
  return { ok: true, value };
}

interface State {
  vars: string[];
  required: string | undefined;
  invalid: string | undefined;
}

const unknown = (name: string): string => `${UNKNOWN_OPEN}${name}${UNKNOWN_CLOSE}`;

function expand(text: string, lookup: Lookup, st: State): string {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const ch = text[i] as string;
    if (ch !== "$") {
      out += ch;
      i++;
      continue;
    }
    const next = text[i + 1];
    if (next === "$") {
      out += "$";
      i += 2;
      continue;
    }
    if (next === "{") {
      const end = bracedEnd(text, i);
      if (end < 0) {
        st.invalid ??= `"${clip(text.slice(i))}" is not a valid variable: \${ needs a name and a closing } on its line`;
        return out;
      }
      out += braced(text.slice(i + 2, end), lookup, st);
      i = end + 1;
      continue;
    }
    const name = NAME.exec(text.slice(i + 1))?.[0];
    if (name) {
      out += valueOf(name, lookup(name), st);
      i += 1 + name.length;
      continue;
    }
    // `$1`, `$ `, `$(`: Compose keeps a `$` that starts no variable.
    out += "$";
    i++;
  }
  return out;
}

/**
 * The index of the `}` that ends the `${` at `start`, as template.go finds it; -1 when its pattern
 * does not match (no name, no `}` on the line): an InvalidTemplateError.
 */
function bracedEnd(text: string, start: number): number {
  const name = NAME.exec(text.slice(start + 2))?.[0];
  if (!name) return -1;
  const after = start + 2 + name.length;
  // `${NAME}`: the optional operator group fails, the `}` follows the name.
  if (text[after] === "}") return after;
  if (!/^:?[-+?]/.test(text.slice(after, after + 2))) return -1;
  // The operator's `.*` runs to the last `}` of the line (Go's `.` does not match a newline).
  const lineEnd = text.indexOf("\n", start);
  const last = text.lastIndexOf("}", lineEnd < 0 ? text.length : lineEnd - 1);
  if (last < after) return -1;
  // getFirstBraceClosingIndex over that match: the first `}` that balances; else the match's end.
  let open = 0;
  for (let i = start; i <= last; i++) {
    if (text[i] === "}") {
      open--;
      if (open === 0) return i;
    }
    if (text[i] === "{") {
      open++;
      i++;
    }
  }
  return last;
}

function braced(body: string, lookup: Lookup, st: State): string {
  const name = NAME.exec(body)?.[0] as string;
  const rest = body.slice(name.length);
  if (rest === "") return valueOf(name, lookup(name), st);
  // template.go getSubstitutionFunctionForTemplate: the operator written first.
  const m = /^(:?)([-?+])([\s\S]*)$/.exec(rest) as RegExpExecArray;
  const colon = m[1] === ":";
  const op = m[2] as "-" | "?" | "+";
  const arg = m[3] as string;
  const v = lookup(name);
  if (v.state === "unknown") {
    st.vars.push(...v.vars);
    return unknown(name);
  }
  // `:` makes an empty value count as missing.
  const present = v.state === "set" && (!colon || v.value !== "");
  switch (op) {
    case "-":
      return present ? (v as { value: string }).value : expand(arg, lookup, st);
    case "+":
      return present ? expand(arg, lookup, st) : "";
    case "?":
      if (present) return (v as { value: string }).value;
      st.vars.push(name);
      // The message may use variables too; what it lacks is not what the value lacks.
      st.required ??= arg === "" ? `${name} is required` : expand(arg, lookup, { vars: [], required: undefined, invalid: undefined });
      return unknown(name);
    default:
      op satisfies never;
      return "";
  }
}

function valueOf(name: string, v: VarValue, st: State): string {
  if (v.state === "set") return v.value;
  // Docker substitutes "" with a warning; the deploy host's shell may well set it, so kvgate does not guess.
  st.vars.push(...(v.state === "unknown" ? v.vars : [name]));
  return unknown(name);
}

function clip(s: string): string {
  return s.length > 40 ? s.slice(0, 37) + "..." : s;
}
