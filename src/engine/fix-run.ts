// `kvgate check --fix`: writes the value fixes the findings carry (data.fix) into the working tree,
// never the index (the user reviews and stages them), then checks again: the staged change as it
// will be once the fixes are staged (HEAD → working tree), or the working tree under --all. Up to
// three rounds, so a fix whose value uncovers the next rule's number (the TTM floor after the pool)
// is written too. The CLI prints what it changed and what is left (src/report/fixes.ts); the exit
// code is the re-check's.
import { GateError } from "../errors.js";
import { applyFixes, type AppliedFix, type FailedFix } from "../fix/edit.js";
import { fixesOf, type RuledFix } from "../fix/collect.js";
import type { CheckResult } from "./result.js";
import type { ChangedFile, DeployUnit, Selection } from "../git/types.js";
import type { Source } from "./source.js";
import type { Repo } from "../git/index.js";
import { readWorkingFile, writeWorkingFile } from "../load/worktree.js";

export interface FixRun {
  result: CheckResult;
  applied: (AppliedFix & { rule: string })[];
  failed: (FailedFix & { rule: string })[];
  /** Files --fix wrote whose staged version still holds the old (refused) value: the commit takes the index. */
  staleInIndex: string[];
}

const ROUNDS = 3;

/** Writes one round of fixes; returns the new texts by path. */
async function writeRound(base: string, result: CheckResult, run: FixRun, tried: Set<string>): Promise<Map<string, string>> {
  const written = new Map<string, string>();
  for (const [path, fixes] of fixesOf(result.findings)) {
    const fresh = fixes.filter((f) => !tried.has(`${f.file}\u0000${f.key}\u0000${f.value}`));
    if (fresh.length === 0) continue;
    for (const f of fresh) tried.add(`${f.file}\u0000${f.key}\u0000${f.value}`);
    let text: string;
    try {
      text = await readWorkingFile(base, path);
    } catch (e) {
      run.failed.push(
        ...fresh.map((fix) => ({
          fix,
          why: `cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
          rule: fix.rule,
        })),
      );
      continue;
    }
    const edit = applyFixes(text, path, fresh);
    const ruleOf = (fix: RuledFix | object) => ("rule" in fix ? String(fix.rule) : "");
    run.applied.push(...edit.applied.map((a) => ({ ...a, rule: ruleOf(a.fix) })));
    run.failed.push(...edit.failed.map((f) => ({ ...f, rule: ruleOf(f.fix) })));
    if (edit.applied.length === 0) continue;
    try {
      await writeWorkingFile(base, path, edit.text);
    } catch (e) {
      throw new GateError(`cannot write ${path}: ${(e as Error).message}`, {
        hint: "make the file writable, or apply the fixes the report names by hand",
      });
    }
    written.set(path, edit.text);
  }
  return written;
}

/** The units to check again: the working tree as the after side, the fixed files among the changed ones. */
async function recheckUnits(source: Source, selection: Selection, units: DeployUnit[], texts: Map<string, string>): Promise<DeployUnit[]> {
  if (selection.mode === "all" || !source.repo) return source.units({ mode: "all" });
  const worktree = await source.repo.snapshot("worktree");
  return units.map((u) => {
    const files: ChangedFile[] = u.files.map((f) => {
      const text = texts.get(f.path);
      return text === undefined ? f : { ...f, after: text, size: Buffer.byteLength(text) };
    });
    for (const [path, text] of texts) {
      if (files.some((f) => f.path === path)) continue;
      files.push({
        path,
        oldPath: null,
        status: "modified",
        before: null,
        after: text,
        binary: false,
        size: Buffer.byteLength(text),
        addedLines: [],
      });
    }
    return { ...u, after: worktree, files };
  });
}

export async function fixAndRecheck(opts: {
  source: Source;
  base: string;
  selection: Selection;
  units: DeployUnit[];
  first: CheckResult;
  check: (units: DeployUnit[]) => Promise<CheckResult>;
}): Promise<FixRun> {
  const run: FixRun = { result: opts.first, applied: [], failed: [], staleInIndex: [] };
  const tried = new Set<string>();
  const texts = new Map<string, string>();
  for (let round = 0; round < ROUNDS; round++) {
    const written = await writeRound(opts.base, run.result, run, tried);
    if (written.size === 0) break;
    for (const [p, t] of written) texts.set(p, t);
    run.result = await opts.check(await recheckUnits(opts.source, opts.selection, opts.units, texts));
  }
  if (opts.source.repo && texts.size > 0) run.staleInIndex = await staleInIndex(opts.source.repo, texts);
  return run;
}

/** The written files the index holds in another version: until `git add`, a commit records the refused value. */
async function staleInIndex(repo: Repo, texts: Map<string, string>): Promise<string[]> {
  const staged = await (await repo.snapshot("index")).read([...texts.keys()]);
  return [...texts]
    .filter(([p, t]) => {
      const blob = staged.get(p);
      return blob != null && blob.toString("utf8") !== t;
    })
    .map(([p]) => p)
    .sort();
}
