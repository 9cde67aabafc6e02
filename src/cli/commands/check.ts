// kvgate check: gate the staged change (default), one commit, a range, or the whole tree.
import { resolve } from "node:path";
import { parse, oneOf } from "../args.js";
import { UsageError } from "../../errors.js";
import { emit } from "../io.js";
import { loadPack, policyFromFile, repoDirOf } from "../context.js";
import { checkUnits } from "../../engine/run.js";
import { formatResult, FORMATS, type Format } from "../../report/index.js";
import { openSource } from "../source.js";
import type { Selection } from "../../git/types.js";
import type { Mode } from "../../engine/result.js";
import { startVerdictRecording } from "./check-hooks.js";
import { overrideEnv } from "../override-env.js";
import { useColor } from "../../report/color.js";
import { createFleetLoader, type FleetLoader } from "../../load/fleet.js";
import { loadPolicy } from "../../config/load.js";
import type { CheckResult } from "../../engine/result.js";
import type { Policy } from "../../config/policy.js";
import type { RulesPack } from "../../rules/pack.js";
import type { DeployUnit } from "../../git/types.js";
import { assertFixable, describeFixes, fixAndRecheck } from "./check-fix.js";
import { readFileSync } from "node:fs";
import { GateError } from "../../errors.js";
import { parseBaseline } from "../../engine/baseline-file.js";
import { fixFileTexts } from "../../fix/texts.js";

/** --baseline FILE's text; a missing or unreadable file stops the run (exit 2) with the fix. */
function readBaselineFile(file: string): string {
  if (file === "") throw new UsageError("--baseline needs a file (an earlier `kvgate check --format json` report)");
  try {
    return readFileSync(file, "utf8");
  } catch (e) {
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
  const source = await openSource(await repoDirOf(values.repo), true);
  const units = await source.units(selection);
  const recording = startVerdictRecording(source, selection);
  if (process.env.KVGATE_TEST_FAULT === "engine") throw new Error("injected fault (KVGATE_TEST_FAULT=engine)");
  const mode: Mode = selection.mode;
  const loader = createFleetLoader();
  const baseline = values.baseline === undefined ? undefined : parseBaseline(readBaselineFile(values.baseline), values.baseline);
  const runOpts = {
    mode,
    failOn,
    pack,
    env: overrideEnv(selection, process.env),
    loader,
    ...(policy ? { policy } : {}),
    ...(baseline ? { baseline } : {}),
  };
  let result = await checkUnits(units, runOpts);
  // The verdict recorded is the staged tree's: --fix writes the working tree, not the index.
  await recording.save(result);
  const staged = units[0];
  if (staged && values.config === undefined) await recording.saveFastPathKey(staged, loader, pack);
  if (values.fix) {
    const base = source.repo ? resolve(source.repo.root, source.repo.prefix) : await repoDirOf(values.repo);
    const run = await fixAndRecheck({
      source,
      base,
      selection,
      units,
      first: result,
      check: (u) => checkUnits(u, { ...runOpts, loader: createFleetLoader() }),
    });
    result = run.result;
    // Text keeps one stream; a machine format stays parseable on stdout, so the summary goes to stderr.
    (format === "text" && values.output === undefined ? process.stdout : process.stderr).write(describeFixes(run));
  }
  const color = useColor(values.output === undefined ? process.stdout : {}, process.env);
  // SARIF's fixes are replacements in the tree that was checked (the newest unit's); after --fix that
  // tree is not what the working tree holds any more, so the fixes left are given without them.
  const newest = units[units.length - 1];
  const files = format === "sarif" && !values.fix && newest ? await fixFileTexts(result.findings, newest.after) : undefined;
  emit(
    formatResult(result, format, {
      color,
      overrideName: await overrideNameOf(result, policy, units, loader, pack),
      ...(files ? { files } : {}),
    }),
    values.output,
  );
  return result.verdict === "fail" ? 1 : 0;
}

/**
 * The override variable as kvgate.yaml names it, for the text that explains allowed findings:
 * --config's, else the newest unit's kvgate.yaml (read only when something was allowed).
 */
async function overrideNameOf(
  result: CheckResult,
  policy: Policy | undefined,
  units: DeployUnit[],
  loader: FleetLoader,
  pack: RulesPack,
): Promise<string> {
  const newest = units[units.length - 1];
  if (policy) return policy.secrets.override;
  if (result.counts.allowed > 0 && newest) return (await loader.policy(newest.after, pack)).secrets.override;
  return loadPolicy(null, "kvgate.yaml", pack).secrets.override;
}
