// A systemd unit file as systemd reads it (systemd.syntax(7)): `[Section]` headers, `Key=Value` lines,
// `#` and `;` comments, a trailing backslash joining the next line, and keys that may repeat (each
// `ExecStart=`, `Environment=`, `After=` adds to the list; an empty value resets it). Lines are kept,
// so a finding points at the line that writes the value.

export interface UnitEntry {
  key: string;
  value: string;
  /** 1-based line of the key (the first line of a continued value). */
  line: number;
}

export interface UnitFile {
  sections: Map<string, UnitEntry[]>;
  problems: { line: number; message: string }[];
}

/** Keys systemd treats as lists, where an empty assignment clears what came before. */
const LISTS = new Set([
  "ExecStart",
  "Environment",
  "EnvironmentFile",
  "After",
  "Requires",
  "Wants",
  "BindsTo",
  "ExecStartPre",
  "ExecStartPost",
]);

export function parseUnit(text: string): UnitFile {
  const sections = new Map<string, UnitEntry[]>();
  const problems: UnitFile["problems"] = [];
  const lines = text.replace(/^\uFEFF/, "").split(/\r\n|\n|\r/);
  let section: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const start = i + 1;
    let raw = lines[i] ?? "";
    // A trailing backslash continues the value on the next line (comments inside are skipped).
    while (/\\$/.test(raw) && i + 1 < lines.length) {
      i++;
      const next = lines[i] ?? "";
      if (/^\s*[#;]/.test(next)) continue;
      raw = raw.slice(0, -1) + " " + next;
    }
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const head = /^\[([^\]]+)\]$/.exec(line);
    if (head) {
      section = head[1] as string;
      if (!sections.has(section)) sections.set(section, []);
      continue;
    }
    const eq = line.indexOf("=");
    if (eq <= 0 || section === null) {
      problems.push({
        line: start,
        message: section === null ? `line ${start} is outside any [Section]` : `line ${start} is not Key=Value`,
      });
      continue;
    }
    const key = line.slice(0, eq).trim();
    const value = line.slice(eq + 1).trim();
    const list = sections.get(section) as UnitEntry[];
    if (LISTS.has(key) && value === "") {
      // `ExecStart=` alone resets the list (a drop-in's way to replace the command).
      for (let j = list.length - 1; j >= 0; j--) if (list[j]?.key === key) list.splice(j, 1);
      continue;
    }
    if (!LISTS.has(key)) for (let j = list.length - 1; j >= 0; j--) if (list[j]?.key === key) list.splice(j, 1);
    list.push({ key, value, line: start });
  }
  return { sections, problems };
}

/** The entries of a key in a section, in order. */
export function entriesOf(unit: UnitFile, section: string, key: string): UnitEntry[] {
  return (unit.sections.get(section) ?? []).filter((e) => e.key === key);
}

/**
 * `Environment=` values: space-separated assignments, each optionally quoted (`"A=1 2" B=3`), as
 * systemd.exec(5) splits them.
 */
export function environmentPairs(value: string): { key: string; value: string }[] {
  const out: { key: string; value: string }[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(value); m; m = re.exec(value)) {
    const item = m[1] !== undefined ? m[1].replace(/\\(.)/g, "$1") : (m[2] ?? m[3] ?? "");
    const eq = item.indexOf("=");
    if (eq > 0) out.push({ key: item.slice(0, eq), value: item.slice(eq + 1) });
  }
  return out;
}
