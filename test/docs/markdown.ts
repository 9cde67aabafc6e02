// Markdown pieces of the rule pages: fenced blocks, table cells, and a line diff of a changed file.

/** A fenced block; the fence is longer than any run of backquotes inside. */
export function fence(lang: string, text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const f = "`".repeat(longest + 1);
  return `${f}${lang}\n${text.endsWith("\n") ? text : `${text}\n`}${f}`;
}

/** A table cell: pipes escaped, line breaks flattened. */
export function cell(s: string): string {
  return s.replace(/\\/g, "\\\\").replace(/\|/g, "\\|").replace(/\r?\n/g, " ");
}

/** Inline code that survives backquotes inside. */
export function code(s: string): string {
  return s.includes("`") ? `\`\` ${s} \`\`` : `\`${s}\``;
}

/** The language of a fenced block for a file. */
export function langOf(path: string): string {
  if (/\.ya?ml$/.test(path)) return "yaml";
  if (/\.json$/.test(path)) return "json";
  if (/\.env$/.test(path) || path.endsWith(".env.j2")) return "sh";
  return "text";
}

/**
 * A unified diff of two texts, every line shown (the files of a rule table are a few lines long):
 * ` ` kept, `-` removed, `+` added, by the longest common subsequence of lines.
 */
export function lineDiff(before: string, after: string): string {
  const a = before.replace(/\n$/, "").split("\n");
  const b = after.replace(/\n$/, "").split("\n");
  const lcs: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      (lcs[i] as number[])[j] = a[i] === b[j] ? (lcs[i + 1]?.[j + 1] ?? 0) + 1 : Math.max(lcs[i + 1]?.[j] ?? 0, lcs[i]?.[j + 1] ?? 0);
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push(` ${a[i]}`);
      i++;
      j++;
    } else if (i < a.length && (j === b.length || (lcs[i + 1]?.[j] ?? 0) >= (lcs[i]?.[j + 1] ?? 0))) {
      out.push(`-${a[i]}`);
      i++;
    } else {
      out.push(`+${b[j]}`);
      j++;
    }
  }
  return out.join("\n") + "\n";
}
