// `kvgate check --fix`: writes the value fixes the findings carry (data.fix) into the working tree,
// never the index (the user reviews and stages them), then checks again: the staged change as it
// will be once the fixes are staged (HEAD → working tree), or the working tree under --all. Up to
// three rounds, so a fix whose value uncovers the next rule's number (the TTM floor after the pool)
// is written too. The CLI prints what it changed and what is left (src/report/fixes.ts); the exit
// code is the re-check's.
// What it will not do (docs/cli.md#fix): edit a file that changed since it was staged (the findings'
// lines are the staged file's), rewrite a line holding a secret, or write through a symlink that
// leads outside the repository (src/load/worktree.ts).
import { GateError } from "../errors.js";
import { applyFixes, type AppliedFix, type FailedFix } from "../fix/edit.js";
import { fixesOf, type RuledFix } from "../fix/collect.js";
import type { CheckResult } from "./result.js";
import type { ChangedFile, DeployUnit, Selection, Snapshot } from "../git/types.js";
import type { Source } from "./source.js";
import type { Repo } from "../git/index.js";
import type { Masker } from "../secrets/mask.js";
import { workingFiles, type WorkingFiles } from "../load/worktree.js";

export interface FixRun {
  result: CheckResult;
  applied: (AppliedFix & { rule: string })[];
  failed: (FailedFix & { rule: string })[];
  /** Files --fix wrote whose staged version still holds the old (refused) value: the commit takes the index. */
  staleInIndex: string[];
}

const ROUNDS = 3;

/** What a round needs besides the findings: the files, what each file must still hold, the masker. */
interface RoundContext {
  files: WorkingFiles;
  /** The text the finding's lines were read from (the staged blob, or what an earlier round wrote); null: not checked. */
  expected(path: string): Promise<string | null>;
  masker: Masker;
}

/** Writes one round of fixes; returns the new texts by path. */
async function writeRound(ctx: RoundContext, result: CheckResult, run: FixRun, tried: Set<string>): Promise<Map<string, string>> {
  const written = new Map<string, string>();
  for (const [path, fixes] of fixesOf(result.findings)) {
    const fresh = fixes.filter((f) => !tried.has(`${f.file}\u0000${f.key}\u0000${f.value}`));
    if (fresh.length === 0) continue;
    for (const f of fresh) tried.add(`${f.file}\u0000${f.key}\u0000${f.value}`);
    const refuse = (why: string) => run.failed.push(...fresh.map((fix) => ({ fix, why, rule: fix.rule })));
    let text: string;
    try {
      text = ctx.files.read(path);
    } catch (e) {
      refuse(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
      continue;
    }
    const expected = await ctx.expected(path);
    if (expected !== null && expected !== text) {
      refuse(
        `${path} changed in the working tree since it was staged, so the findings' lines ` +
          `are not its lines: stage it (git add ${path}) and run kvgate check --fix again`,
      );
      continue;
    }
    const edit = applyFixes(text, path, fresh, (line) => ctx.masker.holdsSecret(line));
    const ruleOf = (fix: RuledFix | object) => ("rule" in fix ? String(fix.rule) : "");
    // What is printed back is masked as any shown text is (the fixes' own values already are).
    run.applied.push(...edit.applied.map((a) => ({ ...a, from: a.from === null ? null : ctx.masker.text(a.from), rule: ruleOf(a.fix) })));
    run.failed.push(...edit.failed.map((f) => ({ ...f, rule: ruleOf(f.fix) })));
    if (edit.applied.length === 0) continue;
    try {
      ctx.files.write(path, edit.text);
    } catch (e) {
      if (e instanceof GateError) throw e;
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
  /** The repository's top level (where a symlink may lead), and the folder checked (what paths are relative to). */
  root: string;
  base: string;
  selection: Selection;
  units: DeployUnit[];
  first: CheckResult;
  masker: Masker;
  check: (units: DeployUnit[]) => Promise<CheckResult>;
}): Promise<FixRun> {
  const run: FixRun = { result: opts.first, applied: [], failed: [], staleInIndex: [] };
  const tried = new Set<string>();
  const texts = new Map<string, string>();
  // --staged: the findings are about the staged blobs; a file edited since is not theirs to fix.
  const staged: Snapshot | null = opts.selection.mode === "staged" ? (opts.units[opts.units.length - 1]?.after ?? null) : null;
  const ctx: RoundContext = {
    files: workingFiles(opts.root, opts.base),
    masker: opts.masker,
    async expected(path) {
      const wrote = texts.get(path);
      if (wrote !== undefined) return wrote;
      const blob = staged ? ((await staged.read([path])).get(path) ?? null) : null;
      return blob === null ? null : blob.toString("utf8");
    },
  };
  for (let round = 0; round < ROUNDS; round++) {
    const written = await writeRound(ctx, run.result, run, tried);
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
