// References are only references. A value is skipped when it is the name of a variable (`${NAME}`,
// `{{ vault_db_password }}`), a vault path (`vault:…`, a string argument of `{{ lookup(…) }}`); it
// is scanned when it is a literal written into the reference: a shell default (`${X:-AKIA…}`,
// `${X-…}`, `${X:=…}`), a Jinja literal (`{{ x | default('AKIA…') }}`, `{{ 'AKIA…' }}`). The compose
// and playbook idioms put real keys in exactly those defaults.
import type { DetectorSet } from "../rules/detectors.js";

/** How far around a value a reference's `${` / `{{` is looked for: references are short. */
const WINDOW = 512;

/** `name`: the value is a reference; `lookup-arg`: inside a vault lookup's string argument; `literal`: scan it. */
export type ReferenceKind = "name" | "lookup-arg" | "literal";

/** The innermost `open` before `at` that no `close` after it has closed, or -1. */
function innermostOpen(text: string, at: number, open: string, close: string): number {
  const lo = Math.max(0, at - WINDOW);
  let depth = 0;
  for (let i = at - 1; i >= lo; i--) {
    if (text.startsWith(close, i)) depth++;
    else if (text.startsWith(open, i)) {
      if (depth === 0) return i;
      depth--;
    }
  }
  return -1;
}

function closedAfter(text: string, end: number, close: string): boolean {
  return text.slice(end, end + WINDOW).includes(close);
}

/**
 * Where a position inside a Jinja expression stands: inside a string literal or not, and the names
 * of the calls whose parentheses hold it.
 */
function jinjaPosition(expr: string): { inString: boolean; calls: string[] } {
  const calls: string[] = [];
  let quote: string | null = null;
  for (let i = 0; i < expr.length; i++) {
    const c = expr[i] ?? "";
    if (quote) {
      if (c === "\\") i++;
      else if (c === quote) quote = null;
      continue;
    }
    if (c === "'" || c === '"') quote = c;
    else if (c === "(") {
      const name = /([A-Za-z_][A-Za-z0-9_]*)\s*$/.exec(expr.slice(Math.max(0, i - 64), i));
      calls.push(name?.[1]?.toLowerCase() ?? "");
    } else if (c === ")") calls.pop();
  }
  return { inString: quote !== null, calls };
}

/** What the value at [start, end) of `text` is with respect to references. */
export function referenceKind(text: string, start: number, end: number, refs: DetectorSet["references"]): ReferenceKind {
  const before = text.slice(Math.max(0, start - 64), start).toLowerCase();
  const head = text.slice(start, Math.min(end, start + 32)).toLowerCase();
  if (refs.prefixes.some((p) => before.endsWith(p) || head.startsWith(p))) return "name";

  const jinja = innermostOpen(text, start, "{{", "}}");
  if (jinja >= 0 && closedAfter(text, end, "}}")) {
    const at = jinjaPosition(text.slice(jinja + 2, start));
    // Outside quotes a Jinja (or GitHub Actions) expression holds names, filters and numbers: a
    // variable, not a value. A value no name can spell (`secrets.pypi-AgEI…/…`) was pasted in.
    if (!at.inString) return /^[A-Za-z0-9_.]*$/.test(text.slice(start, end)) ? "name" : "literal";
    return at.calls.some((c) => refs.lookups.includes(c)) ? "lookup-arg" : "literal";
  }

  const shell = innermostOpen(text, start, "${", "}");
  if (shell >= 0 && closedAfter(text, end, "}")) {
    // `${NAME}`, `${!NAME}`, `${#NAME}`: the value is (part of) the name. Anything else between the
    // `${` and the value (`X:-`, `X-`, `X:=`) makes it a default written into the file.
    return /^[!#]?[A-Za-z0-9_]*$/.test(text.slice(shell + 2, start)) ? "name" : "literal";
  }
  return "literal";
}
