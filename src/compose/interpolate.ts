// Compose interpolation (compose spec "Interpolation"): `$VAR`, `${VAR}`, `${VAR:-default}`,
// `${VAR-default}`, `${VAR:?error}`, `${VAR?error}`, `${VAR:+replacement}`, `${VAR+replacement}`,
// nested defaults, and `$$` for a literal `$`. Variables come from the `.env` beside the compose file,
// as `docker compose config` reads them in a clean shell. Where Docker would take a variable from the
// deploy host's shell (a plain `${VAR}` that the `.env` does not set), kvgate cannot know the value:
// the result is unresolved, never an empty string or a guess.

/** What a variable is to kvgate: set (maybe empty), unset, or unknown (its own value was unresolved). */
export type VarValue = { state: "set"; value: string } | { state: "unset" } | { state: "unknown"; vars: string[] };

export type Lookup = (name: string) => VarValue;

export type Interpolated =
  | { ok: true; value: string }
  /** `vars`: the variables that stayed unknown; `required`: the `:?`/`?` message of a required one. */
  | { ok: false; kind: "unresolved"; vars: string[]; required?: string }
  /** Text Docker refuses to load (`${` never closed, `${1X}`, `${VAR/a/b}`). */
  | { ok: false; kind: "invalid"; message: string };

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
    };
  }
  return { ok: true, value };
}

interface State {
  vars: string[];
  required: string | undefined;
  invalid: string | undefined;
}

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
      const end = closingBrace(text, i + 2);
      if (end < 0) {
        st.invalid ??= `"${clip(text.slice(i))}" opens \${ without a closing }`;
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

/** The index of the `}` closing a `${` whose body starts at `from`, counting nested `${…}`. */
function closingBrace(text: string, from: number): number {
  let depth = 1;
  for (let i = from; i < text.length; i++) {
    if (text[i] === "$" && text[i + 1] === "$") i++;
    else if (text[i] === "$" && text[i + 1] === "{") {
      depth++;
      i++;
    } else if (text[i] === "}" && --depth === 0) return i;
  }
  return -1;
}

function braced(body: string, lookup: Lookup, st: State): string {
  const name = NAME.exec(body)?.[0];
  if (!name) {
    st.invalid ??= `"\${${clip(body)}}" is not a variable: a name starts with a letter or _`;
    return "";
  }
  const rest = body.slice(name.length);
  if (rest === "") return valueOf(name, lookup(name), st);
  const m = /^(:?)([-?+])([\s\S]*)$/.exec(rest);
  if (!m) {
    st.invalid ??= `"\${${clip(body)}}": Compose reads only :- - :? ? :+ + after a variable name`;
    return "";
  }
  const colon = m[1] === ":";
  const op = m[2] as "-" | "?" | "+";
  const arg = m[3] as string;
  const v = lookup(name);
  if (v.state === "unknown") {
    st.vars.push(...v.vars);
    return "";
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
      return "";
    default:
      op satisfies never;
      return "";
  }
}

function valueOf(name: string, v: VarValue, st: State): string {
  if (v.state === "set") return v.value;
  // Docker substitutes "" with a warning; the deploy host's shell may well set it, so kvgate does not guess.
  st.vars.push(...(v.state === "unknown" ? v.vars : [name]));
  return "";
}

function clip(s: string): string {
  return s.length > 40 ? s.slice(0, 37) + "..." : s;
}
