// The env files Compose reads itself: the `.env` beside the compose file (the variables for
// interpolation) and a service's `env_file`s (its container env). Both are read with the env parser
// of docs/env-files.md, plus what Compose's own format adds (compose spec, services `env_file`
// format): `KEY: VALUE` and `KEY = VALUE`, a bare `KEY` (taken from the environment), and
// interpolation of unquoted and double-quoted values (single-quoted ones are literal).
import { parseEnv } from "../parse/env.js";
import { interpolate, type Lookup, type VarValue } from "./interpolate.js";

interface DotEnvEntry {
  key: string;
  /** The value after interpolation; null when it could not be resolved (`vars` says why). */
  value: string | null;
  line: number;
  vars?: string[];
}

export interface DotEnv {
  entries: DotEnvEntry[];
  /** Lines that are not `KEY=VALUE` (Compose refuses to load the file). */
  problems: { line: number; message: string }[];
}

const BARE = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*$/;
/** `KEY: VALUE` and `KEY = VALUE` → `KEY=VALUE`, so the env parser reads the forms Compose accepts. */
const DELIMITER = /^(\s*(?:export\s+)?[A-Za-z_][A-Za-z0-9_]*)\s*(?::\s|:$|\s+=|=)\s*/;

/**
 * Reads an env file as Compose does. `outer` answers variables the file itself does not set (the
 * project's `.env` for an env_file; nothing for the `.env` itself). `raw` (env_file `format: raw`):
 * values are taken as written, without interpolation.
 */
export function readDotEnv(text: string, file: string, outer: Lookup, raw = false): DotEnv {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  const bare = new Map<number, string>();
  const inQuotes = continuationLines(lines);
  const normalised = lines.map((l, i) => {
    if (inQuotes.has(i)) return l;
    const b = BARE.exec(l);
    if (b && !l.trim().startsWith("#")) {
      bare.set(i + 1, b[1] as string);
      return "";
    }
    return l.replace(DELIMITER, "$1=");
  });
  const parsed = parseEnv(normalised.join("\n"), file);
  const own = new Map<string, VarValue>();
  const lookup: Lookup = (name) => own.get(name) ?? outer(name);
  const rows: { line: number; key: string; value: string | null; literal: boolean }[] = [
    ...parsed.all.map((e) => ({ line: e.line, key: e.key, value: e.value, literal: raw || singleQuoted(lines[e.line - 1] ?? "") })),
    ...[...bare].map(([line, key]) => ({ line, key, value: null, literal: false })),
  ].sort((a, b) => a.line - b.line);
  const entries: DotEnvEntry[] = [];
  for (const row of rows) {
    let entry: DotEnvEntry;
    if (row.value === null) {
      // A bare KEY takes its value from the environment Compose runs in.
      const v = outer(row.key);
      if (v.state === "unset") continue;
      entry =
        v.state === "set" ? { key: row.key, value: v.value, line: row.line } : { key: row.key, value: null, line: row.line, vars: v.vars };
    } else if (row.literal) {
      entry = { key: row.key, value: row.value, line: row.line };
    } else {
      const r = interpolate(row.value, lookup);
      entry = r.ok
        ? { key: row.key, value: r.value, line: row.line }
        : { key: row.key, value: null, line: row.line, vars: r.kind === "unresolved" ? r.vars : [] };
    }
    own.set(entry.key, entry.value === null ? { state: "unknown", vars: entry.vars ?? [] } : { state: "set", value: entry.value });
    entries.push(entry);
  }
  const problems = parsed.problems
    .filter((p) => p.kind === "parse")
    // Never echo the line: a broken line of an env file may hold a credential.
    .map((p) => ({ line: p.line, message: `line ${p.line} of ${file} is not KEY=VALUE${p.key ? ` (${p.key})` : ""}` }));
  return { entries, problems };
}

/** The last value per key, as a lookup for interpolation. */
export function lookupOf(env: DotEnv): Lookup {
  const vars = new Map<string, VarValue>();
  for (const e of env.entries)
    vars.set(e.key, e.value === null ? { state: "unknown", vars: e.vars ?? [] } : { state: "set", value: e.value });
  return (name) => vars.get(name) ?? { state: "unset" };
}

/** The lines inside a quoted value that spans several lines: they are text, never a key. */
function continuationLines(lines: readonly string[]): Set<number> {
  const out = new Set<number>();
  let open: string | null = null;
  lines.forEach((line, i) => {
    let from = 0;
    if (open !== null) {
      out.add(i);
    } else {
      const m = /^\s*(?:export\s+)?[A-Za-z_][A-Za-z0-9_]*\s*[=:]\s*(["'])/.exec(line);
      if (!m) return;
      open = m[1] as string;
      from = m[0].length;
    }
    for (let j = from; j < line.length; j++) {
      if (open === '"' && line[j] === "\\") j++;
      else if (line[j] === open) {
        open = null;
        return;
      }
    }
  });
  return out;
}

function singleQuoted(line: string): boolean {
  const eq = line.search(/[=:]/);
  return (
    eq >= 0 &&
    line
      .slice(eq + 1)
      .trimStart()
      .startsWith("'")
  );
}
