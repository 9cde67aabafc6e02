// Turns zod issues into one line each, `path: message (file:line)`, so a broken file is reported
// whole at once instead of one problem per run.
import type { z } from "zod";
import { LineCounter, parseDocument, isNode, type Document } from "yaml";

export interface YamlLoad {
  doc: Document;
  lineCounter: LineCounter;
  value: unknown;
  errors: string[];
}

/** Parses YAML keeping positions; YAML syntax errors come back as messages with their line. */
export function parseYamlWithLines(text: string, file: string): YamlLoad {
  const lineCounter = new LineCounter();
  // Aliases are capped so a YAML alias bomb is an error, not an out-of-memory crash.
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const errors = doc.errors.map((e) => {
    const pos = e.pos?.[0];
    const line = pos === undefined ? null : lineCounter.linePos(pos).line;
    return `${file}${line ? `:${line}` : ""}: ${e.message.split("\n")[0]}`;
  });
  let value: unknown = null;
  if (errors.length === 0) {
    try {
      value = doc.toJS({ maxAliasCount: 1000 });
    } catch (e) {
      errors.push(`${file}: ${(e as Error).message}`);
    }
  }
  return { doc, lineCounter, value, errors };
}

export function lineOf(load: YamlLoad, path: readonly PropertyKey[]): number | null {
  for (let n = path.length; n >= 0; n--) {
    const node = load.doc.getIn(path.slice(0, n) as unknown[], true);
    if (isNode(node) && node.range) return load.lineCounter.linePos(node.range[0]).line;
  }
  return null;
}

export function formatZodIssues(error: z.ZodError, load: YamlLoad | null, file: string): string[] {
  return error.issues.map((issue) => {
    const path = issue.path.map(String).join(".") || "(top level)";
    const line = load ? lineOf(load, issue.path) : null;
    let message = issue.message;
    if (issue.code === "unrecognized_keys") message = `unknown key${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => `"${k}"`).join(", ")}`;
    return `${path}: ${message} (${file}${line ? `:${line}` : ""})`;
  });
}
