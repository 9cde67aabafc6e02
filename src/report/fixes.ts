// What `check --fix` did, as the lines the CLI prints: each value written, each fix it could not place, what is left.
import type { FixRun } from "../engine/fix-run.js";

/** File text shown back (the old value) with its control characters escaped, so it cannot rewrite the terminal. */
function shown(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
}

/** What --fix did, as lines: each value written (file:line key old → new, the rule), each fix it could not place. */
export function describeFixes(run: FixRun): string {
  const out: string[] = [];
  if (run.applied.length === 0 && run.failed.length === 0) out.push("kvgate --fix: no finding carries a value fix; nothing written");
  else
    out.push(
      `kvgate --fix: wrote ${run.applied.length} value${run.applied.length === 1 ? "" : "s"} into the working tree (not staged: review and git add them)`,
    );
  for (const a of run.applied) {
    const was = a.from === null ? "added" : `${shown(a.from)} →`;
    out.push(`  fixed ${a.fix.file}:${a.line} ${a.fix.key} ${was} ${a.to} (${a.rule})`);
  }
  for (const f of run.failed) out.push(`  not fixed ${f.fix.file}: ${f.fix.key}=${f.fix.value} (${f.rule}): ${f.why}`);
  const left = run.result.findings.filter((f) => f.status === "open").length;
  out.push(
    left === 0 ? "  left: nothing open after the fixes" : `  left: ${left} open finding${left === 1 ? "" : "s"} after the fixes (below)`,
  );
  return out.join("\n") + "\n";
}

/**
 * The line --fix ends with when the index still holds the old values: the hook and `git commit` take
 * what is staged, so the fixes count once they are added. Empty when nothing it wrote is staged.
 */
export function describeStaleIndex(run: FixRun): string {
  if (run.staleInIndex.length === 0) return "";
  const files = run.staleInIndex.join(" ");
  return (
    `kvgate --fix: the index still holds the refused ` +
    `value${run.applied.length === 1 ? "" : "s"} of ${run.staleInIndex.join(", ")}: ` +
    `a commit records what is staged, so run git add ${files}\n`
  );
}
