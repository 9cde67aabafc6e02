// The engine: for each deploy unit, load the fleet before and after, run every check, and turn the
// reports into findings through the one pipeline (./pipeline.ts). It never prints and never exits;
// the CLI does both.
import type { DeployUnit } from "../git/types.js";
import type { FleetState, PlaybookRead } from "../model/types.js";
import type { Policy } from "../config/policy.js";
import type { RulesPack } from "../rules/pack.js";
import type { AnyCheck, CheckContext } from "../checks/define.js";
import { CHECKS } from "../checks/registry.js";
import { waiverUnknownRule } from "../checks/waiver-unknown-rule.js";
import { countFindings, verdictOf, type CheckResult, type FailOn, type Mode } from "./result.js";
import { baselineKey, raise, runSteps, type Draft, type PipelineContext } from "./pipeline.js";
import { unknownWaivers, waiversOf } from "./waivers.js";
import { createFleetLoader, loadFleet, type FleetLoader } from "../load/fleet.js";
import { VERSION } from "../version.js";
import { playbookContexts } from "./playbook-deploys.js";
import { buildService } from "../model/build.js";
import { createMasker } from "../secrets/mask.js";
import { loadPolicy } from "../config/load.js";
import { IGNORE_FILE, parseIgnore, todayUtc, type IgnoreList } from "../secrets/ignore.js";
import { applyBaseline, type Baseline } from "./baseline-file.js";
import type { Snapshot } from "../git/types.js";

export interface RunOptions {
  mode: Mode;
  failOn: FailOn;
  pack: RulesPack;
  env: Readonly<Record<string, string | undefined>>;
  /** A policy fixed for the whole run (--config, or the Action's policy-from: base). */
  policy?: Policy;
  /** One per run, so a range's unit N+1 reuses unit N's after as its before. */
  loader?: FleetLoader;
  /** The checks to run (default: every registered check); the rule tester runs one. */
  checks?: readonly AnyCheck[];
  /** `.kvgateignore` fixed for the run (the Action's policy-from: base); default: each unit's after side. */
  ignore?: IgnoreList | null;
  /** `--baseline FILE`: rule|fingerprint keys of an earlier report, exempt with reason `baseline`. */
  baseline?: Baseline;
}

/** A snapshot's `.kvgateignore`, or null when it has none. */
export async function ignoreOf(snapshot: Snapshot, today: string = todayUtc()): Promise<IgnoreList | null> {
  const buf = (await snapshot.read([IGNORE_FILE])).get(IGNORE_FILE) ?? null;
  return buf === null ? null : parseIgnore(buf.toString("utf8"), today);
}

/** Runs each check over one context; a throwing check is an internal error (the gate fails closed). */
export function raiseChecks(checks: readonly AnyCheck[], ctx: CheckContext, deploy?: PlaybookRead): Draft[] {
  const commit = ctx.unit.commit?.sha ?? null;
  const out: Draft[] = [];
  for (const check of checks) {
    let reports;
    try {
      reports = check.run(ctx);
    } catch (e) {
      throw new Error(`internal error in check ${check.id}: ${(e as Error).message}`, { cause: e });
    }
    for (const r of reports) out.push(withEngineFrom(raise(check, r, commit, deploy), ctx));
  }
  return out;
}

/**
 * A finding about a service whose engine was recognised from what it runs (no ENGINE key) says how
 * (contract §12), so a user can see why the vLLM rules judged a file that never says "vllm".
 */
function withEngineFrom(d: Draft, ctx: CheckContext): Draft {
  const name = d.finding.service;
  if (name === null || "engine_from" in d.finding.data) return d;
  const r = ctx.after.services.find((s) => s.name === name)?.recognition;
  if (!r || r.by === "ENGINE" || r.engine === null) return d;
  const engine_from = { engine: r.engine, by: r.by, evidence: r.evidence, file: r.origin?.file ?? null, line: r.origin?.line ?? null };
  return { ...d, finding: { ...d.finding, data: { ...d.finding.data, engine_from } } };
}

/** The pipeline context of a run under one policy. */
export function pipelineContext(policy: Policy, pack: RulesPack): PipelineContext {
  return {
    names: { overrideName: policy.secrets.override, waiverTrailer: policy.waivers.trailer },
    baseline: null,
    waivers: [],
    masker: createMasker(pack.detectors(), policy),
  };
}

/**
 * One deploy unit whose fleets are loaded: every check over it, again over the fleet as each changed
 * playbook deploys it, the waiver trailers, and the pipeline up to `mask` (dedupe and sort are the
 * run's, across units).
 */
export function checkFleets(ctx: CheckContext, checks: readonly AnyCheck[] = CHECKS): Draft[] {
  const waivers = waiversOf(ctx.unit.commits, ctx.policy.waivers.trailer);
  const pctx: PipelineContext = { ...pipelineContext(ctx.policy, ctx.pack), waivers };
  const drafts = raiseChecks(checks, ctx);
  // A changed playbook is one deploy of every service it sets: the checks run again over the fleet
  // as the playbook would leave it, and report at the playbook's lines (the `place` step).
  for (const p of playbookContexts(ctx, (env, name) => buildService(env, ctx.pack, ctx.policy, name))) {
    drafts.push(...raiseChecks(checks, p.ctx, p.playbook));
  }
  for (const w of unknownWaivers(waivers)) drafts.push(raise(waiverUnknownRule, w.report, w.commit));
  let out = runSteps(drafts, pctx, "render", "place");
  // A change is answerable for what it introduces: a finding the before state already had (checked
  // as a whole tree, with the same policy) is not the change's. `--all` reports everything.
  // (Only needed when there is something to filter: a clean change, the common case, skips it.)
  if (ctx.before && out.length > 0) {
    const beforeCtx: CheckContext = { ...ctx, unit: { ...ctx.unit, files: [] }, before: null, after: ctx.before };
    const seen = runSteps(raiseChecks(checks, beforeCtx), pctx, "render", "fingerprint").map((d) => baselineKey(d.finding));
    out = runSteps(out, { ...pctx, baseline: new Set(seen) }, "baseline", "mask");
  } else out = runSteps(out, pctx, "baseline", "mask");
  return out;
}

export async function unitDrafts(unit: DeployUnit, opts: RunOptions): Promise<Draft[]> {
  const loader = opts.loader ?? createFleetLoader();
  const policy = opts.policy ?? (await loader.policy(unit.after, opts.pack));
  const after = await loader.load(unit.after, policy, opts.pack);
  const before: FleetState | null = unit.before ? await loader.load(unit.before, policy, opts.pack) : null;
  const unitInfo = { kind: unit.kind, id: unit.id, commit: unit.commit, commits: unit.commits, files: unit.files };
  const ignore = opts.ignore !== undefined ? opts.ignore : await ignoreOf(unit.after);
  // Both sides are checked under the after's policy, so a change that narrows the services glob shows
  // the dropped seats on neither side: the before is also read under its own kvgate.yaml. (A policy
  // fixed for the run, --config or the Action's policy-from: base, is one glob for both sides.)
  let beforeOwn: CheckContext["beforeOwn"];
  if (unit.before && opts.policy === undefined) {
    const own = await loader.policy(unit.before, opts.pack);
    if (own.services !== policy.services) beforeOwn = { services: own.services, fleet: await loadFleet(unit.before, own, opts.pack) };
  }
  return checkFleets(
    {
      policy,
      pack: opts.pack,
      env: opts.env,
      unit: unitInfo,
      before,
      after,
      ...(ignore ? { ignore } : {}),
      ...(beforeOwn ? { beforeOwn } : {}),
    },
    opts.checks,
  );
}

export async function checkUnits(units: DeployUnit[], opts: RunOptions): Promise<CheckResult> {
  const all: Draft[] = [];
  const run = { ...opts, loader: opts.loader ?? createFleetLoader() };
  for (const unit of units) all.push(...(await unitDrafts(unit, run)));
  const findings = applyBaseline(
    runSteps(all, undefined, "dedupe", "sort").map((d) => d.finding),
    opts.baseline,
  );
  const unitMasker = createMasker(opts.pack.detectors(), opts.policy ?? loadPolicy(null, "kvgate.yaml", opts.pack));
  return {
    tool: "kvgate",
    version: VERSION,
    mode: opts.mode,
    verdict: verdictOf(findings, opts.failOn),
    failOn: opts.failOn,
    counts: countFindings(findings),
    findings,
    // A range's id is the revisions as the user typed them: shown, so masked like any shown text.
    units: units.map((u) => unitMasker.text(u.id)),
    filesChecked: new Set(units.flatMap((u) => u.files.map((f) => f.path))).size,
  };
}
