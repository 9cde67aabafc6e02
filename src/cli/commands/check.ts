// kvgate check: gate the staged change (default), one commit, a range, or the whole tree.
import { parse, oneOf } from "../args.js";
import { UsageError } from "../../errors.js";
import { emit } from "../io.js";
import { loadPack, policyFromFile, repoDirOf } from "../context.js";
import { openSource, runCheck } from "../../engine/api.js";
import { formatResult, FORMATS, type Format } from "../../report/reporters.js";
import type { Selection } from "../../git/types.js";
import { startVerdictRecording } from "./check-hooks.js";
import { overrideEnv } from "../override-env.js";
import { useColor } from "../../report/color.js";
import { describeFixes, describeStaleIndex } from "../../report/fixes.js";
import type { FixRun } from "../../engine/fix-run.js";
import { readNamedFile } from "../../git/door.js";
import { GateError } from "../../errors.js";
import { parseBaseline } from "../../engine/baseline-file.js";

/** A baseline is an earlier JSON report: a fleet with 100,000 findings writes about 60 MiB. */
const BASELINE_CAP = { bytes: 256 * 1024 * 1024, kind: "a baseline report" };

/** --baseline FILE's text; a missing or unreadable file stops the run (exit 2) with the fix. */
function readBaselineFile(file: string): string {
  if (file === "") throw new UsageError("--baseline needs a file (an earlier `kvgate check --format json` report)");
  try {
    return readNamedFile(file, BASELINE_CAP, "--baseline").toString("utf8");
  } catch (e) {
    if (e instanceof GateError) throw e;
    throw new GateError(`--baseline ${file}: cannot read it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, {
      hint: "write one with `kvgate check --format json --output FILE`",
    });
  }
}

const OPTIONS = {
  staged: { type: "boolean" },
  commit: { type: "string" },
  range: { type: "string" },
  all: { type: "boolean" },
  unit: { type: "string" },
  repo: { type: "string" },
  config: { type: "string" },
  format: { type: "string" },
  output: { type: "string" },
  "fail-on": { type: "string" },
  fix: { type: "boolean" },
  baseline: { type: "string" },
} as const;

export function selectionOf(v: { staged?: boolean; commit?: string; range?: string; all?: boolean; unit?: string }): Selection {
  const chosen = [
    v.staged && "--staged",
    v.commit !== undefined && "--commit",
    v.range !== undefined && "--range",
    v.all && "--all",
  ].filter(Boolean);
  if (chosen.length > 1) throw new UsageError(`choose one of ${chosen.join(", ")}`);
  const unit = oneOf("unit", v.unit, ["commit", "range"] as const, "commit");
  if (v.unit !== undefined && v.range === undefined) throw new UsageError("--unit goes with --range");
  if (v.commit !== undefined) {
    if (v.commit === "") throw new UsageError("--commit needs a revision");
    return { mode: "commit", rev: v.commit };
  }
  if (v.range !== undefined) {
    if (!/^[^.\s][^\s]*\.\.\.?[^\s]+$/.test(v.range)) throw new UsageError(`--range takes A..B (got "${v.range}")`);
    return { mode: "range", range: v.range, unit };
  }
  if (v.all) return { mode: "all" };
  return { mode: "staged" };
}

export async function checkCommand(argv: string[]): Promise<number> {
  const { values } = parse(argv, OPTIONS, 0);
  const selection = selectionOf(values);
  if (values.fix) assertFixable(selection);
  const format = oneOf<Format>("format", values.format, FORMATS, "text");
  const failOn = oneOf("fail-on", values["fail-on"], ["error", "warning", "never"] as const, "error");
  const pack = loadPack();
  const policy = policyFromFile(values.config, pack);
  const dir = await repoDirOf(values.repo);
  const source = await openSource(dir, true);
  const recording = startVerdictRecording(source, selection);
  if (process.env.KVGATE_TEST_FAULT === "engine") throw new Error("injected fault (KVGATE_TEST_FAULT=engine)");
  const baseline = values.baseline === undefined ? undefined : parseBaseline(readBaselineFile(values.baseline), values.baseline);
  const run = await runCheck({
    dir,
    source,
    selection,
    failOn,
    pack,
    env: overrideEnv(selection, process.env),
    ...(policy ? { policy } : {}),
    ...(baseline ? { baseline } : {}),
  });
  let result = run.result;
  // The verdict recorded is the staged tree's: --fix writes the working tree, not the index.
  await recording.save(result);
  const staged = run.units[0];
  if (staged && values.config === undefined) await recording.saveFastPathKey(staged, run.loader, pack);
  let fixed: FixRun | undefined;
  // Text keeps one stream; a machine format stays parseable on stdout, so the summary goes to stderr.
  const summary = format === "text" && values.output === undefined ? process.stdout : process.stderr;
  if (values.fix) {
    fixed = await run.fix();
    result = fixed.result;
    summary.write(describeFixes(fixed));
  }
  const color = useColor(values.output === undefined ? process.stdout : {}, process.env);
  // SARIF's fixes are replacements in the tree that was checked (the newest unit's); after --fix that
  // tree is not what the working tree holds any more, so the fixes left are given without them.
  const files = format === "sarif" && !values.fix ? await run.fixTexts() : undefined;
  emit(formatResult(result, format, { color, overrideName: await run.overrideName(), ...(files ? { files } : {}) }), values.output);
  if (fixed) summary.write(describeStaleIndex(fixed));
  return result.verdict === "fail" ? 1 : 0;
}

/** `--fix` writes the working tree: it goes with --staged and --all, not with a commit or a range. */
function assertFixable(selection: Selection): void {
  if (selection.mode === "commit" || selection.mode === "range") {
    throw new UsageError(`--fix writes the working tree: use it with --staged or --all, not --${selection.mode}`);
  }
}
