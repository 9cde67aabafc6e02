// A compose document checked against the Compose Specification's JSON schema, as docker compose
// checks it before loading anything (compose-go loader.go loadYamlFile: schema.Validate after
// interpolation, for every file and document): what the schema refuses, compose refuses, so the
// file deploys nothing. The check itself is injected (src/load/compose-schema.ts loads the compiled
// schema when the first compose file is read); this module turns a tree into the JSON compose
// validates and the first error into compose's own words at the line it points at.
import { cast, castAt } from "./casts.js";
import type { CNode, Pos, TreeProblem } from "./tree.js";

/** One error of the schema check, in ajv's shape. */
export interface SchemaError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
}

/** The schema check: the errors of one document (empty when it is valid). */
export type SchemaCheck = (doc: unknown) => readonly SchemaError[];

/** What compose refuses in `tree`, at the file and line of the value it names; null when it is valid. */
export function schemaProblem(tree: CNode, check: SchemaCheck): (TreeProblem & { file: string }) | null {
  const casts: (TreeProblem & { file: string })[] = [];
  const json = jsonOf(tree, [], casts);
  if (casts[0]) return casts[0];
  const errors = check(json);
  if (errors.length === 0) return null;
  const chosen = mostSpecific(errors);
  const path = pointer(chosen.instancePath);
  const node = nodeAt(tree, path);
  let at: Pos = node?.pos ?? tree.pos;
  let reason: string;
  // The branches of a oneOf that failed at the same place (`gpus: all` or a list) are said together.
  const here = errors.filter((e) => e.instancePath === chosen.instancePath && (e.keyword === "type" || e.keyword === "enum"));
  switch (chosen.keyword) {
    case "type":
    case "enum": {
      const types = here.filter((e) => e.keyword === "type").flatMap((e) => String(e.params.type).split(","));
      const values = here.flatMap((e) => (e.keyword === "enum" ? ((e.params.allowedValues as unknown[] | undefined) ?? []) : []));
      reason = `must be ${alternatives(
        values.map((v) => quote(String(v))),
        types,
      )}${quoteHint(node, types)}`;
      break;
    }
    case "additionalProperties": {
      const key = String(chosen.params.additionalProperty);
      if (node?.t === "map") at = node.entries.get(key)?.keyPos ?? at;
      reason = `additional property ${quote(key)} not allowed${key.includes("${") ? " (compose never interpolates a key: write the name itself)" : ""}`;
      break;
    }
    case "required":
      reason = `missing property ${quote(String(chosen.params.missingProperty))}`;
      break;
    case "pattern":
      reason = `${quote(textAt(node))} does not match pattern ${quote(String(chosen.params.pattern))}`;
      break;
    case "uniqueItems":
      reason = `items at ${String(chosen.params.j)} and ${String(chosen.params.i)} are equal`;
      break;
    case "minItems":
    case "maxItems":
    case "minimum":
    case "maximum":
    case "minLength":
    case "minProperties":
      reason = `${chosen.keyword}: want ${String(chosen.params.limit)}`;
      break;
    default:
      reason = `is not valid (${chosen.keyword})`;
  }
  const where = path.length === 0 ? "(root)" : path.join(".");
  return {
    file: at.file,
    line: at.line,
    message: `${where} ${reason}; docker compose refuses the file ("validating ${at.file}: ${where} …")`,
  };
}

/**
 * compose-go schema.go getMostSpecificError: the error deepest in the document (an unknown key one
 * deeper still), the first of equals. For `oneOf` (command: a string or a list of strings) that is the
 * branch that got furthest: `command.3 must be a string`, not `command must be null`.
 */
function mostSpecific(errors: readonly SchemaError[]): SchemaError {
  const depth = (e: SchemaError): number =>
    (e.instancePath === "" ? 0 : e.instancePath.split("/").length - 1) + (e.keyword === "additionalProperties" ? 1 : 0);
  let best = errors[0] as SchemaError;
  for (const e of errors) if (depth(e) > depth(best)) best = e;
  return best;
}

function pointer(p: string): string[] {
  return p === ""
    ? []
    : p
        .slice(1)
        .split("/")
        .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function nodeAt(tree: CNode, path: readonly string[]): CNode | undefined {
  let n: CNode | undefined = tree;
  for (const seg of path) {
    if (n?.t === "map") n = n.entries.get(seg)?.value;
    else if (n?.t === "seq") n = n.items.filter((i) => i.t !== "reset")[Number(seg)];
    else return undefined;
  }
  return n;
}

function textAt(n: CNode | undefined): string {
  return n?.t === "str" ? (n.value ?? "") : "";
}

const TYPE_NAMES: Record<string, string> = {
  object: "a mapping",
  array: "a list",
  string: "a string",
  integer: "an integer",
  number: "a number",
  boolean: "a boolean",
  null: "null",
};

/** compose-go's humanReadableType, in kvgate's words: `a string or a list`, `'all' or a list`. */
function alternatives(values: readonly string[], types: readonly string[]): string {
  const names = [...new Set([...values, ...types.map((t) => TYPE_NAMES[t] ?? t)])];
  return names.length <= 1 ? (names[0] ?? "") : `${names.slice(0, -1).join(", ")} or ${names[names.length - 1] as string}`;
}

/** An unquoted number or boolean where text is wanted: say how to write it. */
function quoteHint(node: CNode | undefined, wanted: readonly string[]): string {
  if (node?.t !== "str" || node.type === undefined || !wanted.includes("string")) return "";
  return ` (YAML reads the unquoted ${node.value ?? ""} as ${node.type === "bool" ? "a boolean" : "a number"}: quote it, "${node.value ?? ""}")`;
}

function quote(s: string): string {
  return `'${s}'`;
}

/** The JSON compose validates: YAML's types, a `!reset` dropped, strings cast where compose-go casts them.
 *  `path` is one array pushed and popped as the walk goes (a big file has hundreds of thousands of nodes). */
function jsonOf(n: CNode, path: string[], casts: (TreeProblem & { file: string })[]): unknown {
  switch (n.t) {
    case "map": {
      const out: Record<string, unknown> = {};
      for (const [k, e] of n.entries) {
        if (e.value.t === "reset") continue;
        path.push(k);
        out[k] = jsonOf(e.value, path, casts);
        path.pop();
      }
      return out;
    }
    case "seq": {
      const out: unknown[] = [];
      path.push("[]");
      for (const i of n.items) if (i.t !== "reset") out.push(jsonOf(i, path, casts));
      path.pop();
      return out;
    }
    case "reset":
      return null;
    case "str":
      return scalarJson(n, path, casts);
    default:
      n satisfies never;
      return null;
  }
}

function scalarJson(n: Extract<CNode, { t: "str" }>, path: string[], casts: (TreeProblem & { file: string })[]): unknown {
  const to = castAt(path);
  // A value kvgate cannot resolve (the deploy host's shell) is not judged: it passes as what compose wants there.
  if (n.unresolved) return to === "int" || to === "float" ? 0 : to === "bool" ? false : "";
  if (n.value === null) return null;
  switch (n.type) {
    case "int":
      return goInt(n.value);
    case "float":
      return Number(n.value.replace(/_/g, "").replace(/^([-+]?)\.inf$/i, "$1Infinity"));
    case "bool":
      return /^true$/i.test(n.value);
    default: {
      if (to === null) return n.value;
      const v = cast(n.value, to);
      if (v instanceof Error) {
        casts.push({
          file: n.pos.file,
          line: n.pos.line,
          message:
            `error while interpolating ${path.join(".").replace(/\.\[\]/g, "[]")}: failed ` +
            `to cast to expected type: ${v.message}; docker compose refuses the file`,
        });
        return n.value;
      }
      return v;
    }
  }
}

/** go-yaml's integer (strconv.ParseInt(s, 0, 64) after dropping `_`): 0x, 0o, 0b and a leading-0 octal. */
function goInt(text: string): number {
  const t = text.replace(/_/g, "");
  const m = /^([-+]?)(0x|0o|0b|0(?=[0-7]))?(.*)$/i.exec(t) as RegExpExecArray;
  const base = { "0x": 16, "0o": 8, "0b": 2, "0": 8 }[(m[2] ?? "").toLowerCase()] ?? 10;
  const v = parseInt(m[3] as string, base);
  return m[1] === "-" ? -v : v;
}
