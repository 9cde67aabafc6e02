// Adds `--flag value` to a container's command in a YAML file (a compose service's `command:`, a
// Kubernetes container's `args:`), where the process is vLLM's server and reads its settings from that
// line only (docs/cli.md#fix). The command is written as the file writes it: items appended to a block
// list (`- --flag` then `- "value"`), to a flow list, or words appended to a one-line or folded string.
// Pure, like ./edit.ts: the lines are edited in place.

interface Added {
  line: number;
  span: { column: number; width: number; written: string };
}

const KEY_LINE = /^(\s*)(?:-\s+)?[\w.-]+\s*:\s*(.*)$/;
const ITEM = /^(\s*)-\s/;
const BLANK_OR_COMMENT = /^\s*(#.*)?$/;

/** The value as a list item: a string always (compose and Kubernetes refuse a number in a command). */
function item(value: string): string {
  if (!value.includes("'")) return `'${value}'`;
  return JSON.stringify(value);
}

/** The value as a shell word inside a string command (compose splits it as a shell would). */
function word(value: string): string {
  return /^[A-Za-z0-9_./:=,+-]+$/.test(value) ? value : `'${value.replace(/'/g, "'\\''")}'`;
}

/** Where a line's text ends before a trailing ` # comment` (outside quotes). */
function endOfValue(line: string): number {
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === "#" && i > 0 && /\s/.test(line[i - 1] ?? "")) return line.slice(0, i).replace(/\s+$/, "").length;
  }
  return line.replace(/\s+$/, "").length;
}

/**
 * Appends to the block list whose first item is at `first`: two items after its last, at its indent.
 * They are written onto the end of that line with the file's line ending, so the caller's line and
 * ending arrays stay parallel.
 */
function appendItems(lines: string[], first: number, flag: string, value: string, eol: string): Added {
  const indent = (ITEM.exec(lines[first] ?? "") as RegExpExecArray)[1] as string;
  let last = first;
  for (let i = first + 1; i < lines.length; i++) {
    const l = lines[i] as string;
    if (BLANK_OR_COMMENT.test(l)) continue;
    const lead = /^\s*/.exec(l)?.[0].length ?? 0;
    if (lead > indent.length || (lead === indent.length && ITEM.test(l))) last = i;
    else break;
  }
  const at = (lines[last] as string).length;
  return appendAt(lines, last, at, `${eol}${indent}- ${flag}${eol}${indent}- ${item(value)}`);
}

/** Adds ` flag value` to the command whose key (or first item) is on 1-based `at`; null when the line is no command. */
export function addToYamlCommand(lines: string[], at: number, flag: string, value: string, eol = "\n"): Added | null {
  const i = at - 1;
  const src = lines[i];
  if (src === undefined) return null;
  if (ITEM.test(src) && !KEY_LINE.test(src.replace(ITEM, ""))) return appendItems(lines, i, flag, value, eol);
  const m = KEY_LINE.exec(src);
  if (!m) return null;
  const rest = (m[2] ?? "").replace(/\s+#.*$/, "");
  if (rest === "") {
    // The value starts on the next line: a block list.
    let j = i + 1;
    while (j < lines.length && BLANK_OR_COMMENT.test(lines[j] as string)) j++;
    return ITEM.test(lines[j] ?? "") ? appendItems(lines, j, flag, value, eol) : null;
  }
  if (/^[>|]/.test(rest)) {
    // A block scalar: the words go on its last line.
    const keyIndent = (m[1] ?? "").length;
    let last = i;
    for (let j = i + 1; j < lines.length; j++) {
      const l = lines[j] as string;
      if (/^\s*$/.test(l)) continue;
      if ((/^\s*/.exec(l)?.[0].length ?? 0) <= keyIndent) break;
      last = j;
    }
    if (last === i) return null;
    return appendAt(lines, last, endOfValue(lines[last] as string), ` ${flag} ${word(value)}`);
  }
  const end = endOfValue(src);
  if (rest.startsWith("[")) {
    const close = src.lastIndexOf("]", end);
    if (close < 0) return null;
    const empty = /\[\s*$/.test(src.slice(0, close));
    return appendAt(lines, i, close, `${empty ? "" : ", "}${JSON.stringify(flag)}, ${JSON.stringify(value)}`);
  }
  // A one-line string: inside its quotes when it is quoted.
  const quoted = /^["']/.test(rest) && src[end - 1] === rest[0];
  return appendAt(
    lines,
    i,
    quoted ? end - 1 : end,
    ` ${flag} ${quoted && rest[0] === '"' ? value.replace(/["\\]/g, "\\$&") : word(value)}`,
  );
}

function appendAt(lines: string[], i: number, column: number, written: string): Added {
  const l = lines[i] as string;
  lines[i] = l.slice(0, column) + written + l.slice(column);
  return { line: i + 1, span: { column, width: 0, written } };
}
