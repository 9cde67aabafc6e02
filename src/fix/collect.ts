// Which value fixes a run's findings ask for: every open finding's `data.fixes` (a fix that needs two
// values) or `data.fix`, one per file, key and line (the first finding's, in the report's order: errors
// before warnings on a line), grouped by file.
import type { Finding } from "../model/types.js";
import type { ValueFix } from "../model/value-fix.js";

export interface RuledFix extends ValueFix {
  /** The rule whose finding asked for it. */
  rule: string;
}

function isFix(v: unknown): v is ValueFix {
  if (typeof v !== "object" || v === null) return false;
  const f = v as Record<string, unknown>;
  return (
    typeof f.file === "string" &&
    (f.line === null || typeof f.line === "number") &&
    typeof f.key === "string" &&
    typeof f.value === "string" &&
    (f.into === undefined || typeof f.into === "string")
  );
}

/** A finding's value fixes: `data.fixes` (a fix that needs two values) or `data.fix`, each with its `also`. */
export function fixListOf(f: Finding): ValueFix[] {
  const list: unknown[] = Array.isArray(f.data.fixes) ? f.data.fixes : f.data.fix !== undefined ? [f.data.fix] : [];
  return list.filter(isFix).flatMap(withAlso);
}

/** A fix and the committed env file's copy of it (ValueFix.also), as two edits. */
function withAlso(fix: ValueFix): ValueFix[] {
  const { also, ...own } = fix;
  return also && isFix(also) ? [own, also] : [own];
}

export function fixesOf(findings: readonly Finding[]): Map<string, RuledFix[]> {
  const byFile = new Map<string, RuledFix[]>();
  const seen = new Set<string>();
  for (const f of findings) {
    if (f.status !== "open") continue;
    for (const fix of fixListOf(f)) {
      // Per line too: two seats of one host_vars file each set `max_model_len`, each its own fix.
      const id = `${fix.file}\u0000${fix.key}\u0000${fix.line ?? ""}`;
      if (seen.has(id)) continue;
      seen.add(id);
      const forFile = byFile.get(fix.file) ?? [];
      forFile.push({
        file: fix.file,
        line: fix.line,
        key: fix.key,
        value: fix.value,
        ...(fix.into ? { into: fix.into } : {}),
        rule: f.rule,
      });
      byFile.set(fix.file, forFile);
    }
  }
  return byFile;
}
