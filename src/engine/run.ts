// The engine: for each deploy unit, load the fleet before and after, run every check, and turn the
// reports into findings through the one pipeline (./pipeline.ts). It never prints and never exits;
// the CLI does both.
import type { ChangedFile, DeployUnit, TreeFiles } from "../git/types.js";
import picomatch from "picomatch";
import type { DeployFile, FleetState, Service } from "../model/types.js";
import type { Policy } from "../config/policy.js";
import type { RulesPack } from "../rules/pack.js";
import type { AnyCheck, CheckContext, FileScan, Report } from "../checks/define.js";
import { CHECKS } from "../checks/registry.js";
import { countFindings, verdictOf, type CheckResult, type FailOn, type Mode } from "./result.js";
import { findingKey, raise, runPhase, runUnitPhases, type Draft, type PipelineContext } from "./pipeline.js";
import { waiversOf } from "./waivers.js";
import { createFleetLoader, loadFleet, type FleetLoader } from "../load/fleet.js";
import { fleetChangeGlobsOf } from "../load/fleet-globs.js";
import { IGNORE_CAP, stopLimits } from "../load/caps.js";
import { VERSION } from "../version.js";
import { composeProfileContexts, playbookContexts } from "./playbook-deploys.js";
import { createMasker } from "../secrets/mask.js";
import { loadPolicy } from "../config/load.js";
import { IGNORE_FILE, parseIgnore, todayUtc, type IgnoreList } from "../secrets/ignore.js";
import type { Baseline } from "./baseline-file.js";
import { coverageOf, fleetCoverage, type Coverage } from "../kv/coverage.js";
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
  const limits = stopLimits(IGNORE_CAP);
  const buf = limits.check(IGNORE_FILE, (await snapshot.read([IGNORE_FILE], limits)).get(IGNORE_FILE) ?? null);
  return buf === null ? null : parseIgnore(buf.toString("utf8"), today);
}

/** What a check's code returns; a throwing check is an internal error (the gate fails closed). */
function guarded<T>(check: AnyCheck, run: () => T): T {
  try {
    return run();
  } catch (e) {
    throw new Error(`internal error in check ${check.id}: ${(e as Error).message}`, { cause: e });
  }
}

/** Runs each check over one context. */
export function raiseChecks(checks: readonly AnyCheck[], ctx: CheckContext, deploy?: DeployFile): Draft[] {
  const commit = ctx.unit.commit?.sha ?? null;
  const out: Draft[] = [];
  for (const check of checks) {
    for (const r of guarded(check, () => check.run(ctx))) out.push(raise(check, r, commit, deploy));
  }
  return out;
}

/**
 * raiseChecks over a whole tree (`--all`) without holding it: each check runs once over the fleet,
 * except a check that scans files (the secret scan), which is handed the tree a chunk at a time,
 * each chunk dropped before the next is read. The drafts come in raiseChecks' order (check by check,
 * file by file), so the findings are the same; also returns how many files were read.
 */
async function raiseOverTree(checks: readonly AnyCheck[], ctx: CheckContext, tree: TreeFiles): Promise<{ drafts: Draft[]; files: number }> {
  const commit = ctx.unit.commit?.sha ?? null;
  const scans = checks.map((c) => {
    const scanFiles = c.scanFiles;
    return scanFiles ? guarded(c, () => scanFiles(ctx)) : null;
  });
  const byCheck = checks.map((c, i) => (scans[i] ? [] : raiseChecks([c], ctx)));
  const take = (i: number, run: (scan: FileScan) => Report[]): void => {
    const check = checks[i] as AnyCheck;
    const scan = scans[i];
    if (!scan) return;
    for (const r of guarded(check, () => run(scan))) byCheck[i]?.push(raise(check, r, commit));
  };
  let files = 0;
  for await (const chunk of tree.chunks()) {
    files += chunk.length;
    for (let i = 0; i < checks.length; i++) take(i, (scan) => scan.files(chunk));
  }
  for (let i = 0; i < checks.length; i++) take(i, (scan) => scan.finish());
  return { drafts: byCheck.flat(), files };
}

/** The pipeline context of a run under one policy (no waivers, nothing seen before, no baseline file). */
export function pipelineContext(policy: Policy, pack: RulesPack, services: readonly Service[] = []): PipelineContext {
  return {
    names: { overrideName: policy.secrets.override, waiverTrailer: policy.waivers.trailer },
    seenBefore: null,
    baseline: null,
    waivers: [],
    services,
    masker: createMasker(pack.detectors(), policy),
  };
}

/**
 * One deploy unit whose fleets are loaded: every check over it, again over the fleet as each changed
 * playbook deploys it, then the unit's phases of the pipeline (identify, judge; `collect` is the
 * run's, across units). `own`: the unit's drafts when already raised (raiseOverTree); `checks` then
 * are those to run again for each deploy. `baseline`: the keys of a `--baseline FILE` report.
 */
export function checkFleets(ctx: CheckContext, checks: readonly AnyCheck[] = CHECKS, own?: Draft[], baseline?: Baseline): Draft[] {
  const drafts = own ?? raiseChecks(checks, ctx);
  // A changed playbook is one deploy of every service it sets: the checks run again over the fleet
  // as the playbook would leave it, and report at the playbook's lines (the `place` step).
  for (const p of playbookContexts(ctx)) drafts.push(...raiseChecks(checks, p.ctx, p.playbook));
  // A compose profile is the fleet with that profile's services started: checked the same way.
  for (const p of composeProfileContexts(ctx)) drafts.push(...raiseChecks(checks, p.ctx, p.playbook));
  const before = ctx.before;
  const pctx: PipelineContext = {
    ...pipelineContext(ctx.policy, ctx.pack, ctx.after.services),
    waivers: waiversOf(ctx.unit.commits, ctx.policy.waivers.trailer),
    baseline: baseline ?? null,
    // A change is answerable for what it introduces: what the before state already had (checked as
    // a whole tree, with the same policy) is not the change's. `--all` reports everything.
    // A change to the gate's policy shows the fleet's whole state: nothing is dropped as already there.
    unsizedTouched: () => unsizedTouched(ctx),
    seenBefore:
      before === null || ctx.unit.policyChange
        ? null
        : () => {
            const beforeCtx: CheckContext = {
              ...ctx,
              // The change's skipped paths (a symlinked env file) are the change's, not the state's before it.
              unit: { ...ctx.unit, files: filesBefore(ctx.unit.files), notices: [] },
              before: null,
              after: before,
              written: { before: null, after: ctx.written.before ?? before },
            };
            // The file scans (secrets) are the change's own: nothing the before state held drops a secret.
            const identified = runPhase(
              "identify",
              raiseChecks(
                checks.filter((c) => !c.scanFiles),
                beforeCtx,
              ),
              {
                ...pipelineContext(ctx.policy, ctx.pack, before.services),
              },
            );
            return new Set(identified.map((d) => findingKey(d.finding)));
          },
  };
  return runUnitPhases(drafts, pctx);
}

/**
 * The change's files as they were before it, with no line added: the before run then takes up the same
 * deploy files (compose files, playbooks, units, manifests) as the after run, so what they already
 * said is known and a comment-only edit of a broken compose file adds nothing. An added file had no
 * before.
 */
function filesBefore(files: readonly ChangedFile[]): ChangedFile[] {
  return files
    .filter((f) => f.before !== null)
    .map((f) => ({
      path: f.oldPath ?? f.path,
      oldPath: null,
      status: "modified" as const,
      before: null,
      after: f.before,
      binary: false,
      size: null,
      addedLines: [],
    }));
}

/** One unit's drafts, and how many of its tree's files were read (`--all`; 0 for a change). */
export async function unitDrafts(
  unit: DeployUnit,
  opts: RunOptions,
): Promise<{ drafts: Draft[]; treeFiles: number; coverage: Coverage | null }> {
  const loader = opts.loader ?? createFleetLoader();
  const policy = opts.policy ?? (await loader.policy(unit.after, opts.pack));
  const after = await loader.load(unit.after, policy, opts.pack);
  const before = unit.before ? await loader.load(unit.before, policy, opts.pack) : null;
  // A whole tree is not held: the checks see the fleet's files, the file scans are handed the rest. A
  // policy change keeps its own files (what moved), its tree going to the scans.
  const files =
    unit.tree && !unit.policyChange ? await unit.tree.read(await unit.after.list(fleetGlobsOf(policy, after.written))) : unit.files;
  const unitInfo = {
    kind: unit.kind,
    id: unit.id,
    commit: unit.commit,
    commits: unit.commits,
    files,
    notices: unit.notices,
    ...(unit.policyChange ? { policyChange: true } : {}),
  };
  const ignore = opts.ignore !== undefined ? opts.ignore : await ignoreOf(unit.after);
  // Both sides are checked under the after's policy, so a change that narrows the services glob shows
  // the dropped seats on neither side: the before is also read under its own kvgate.yaml. (A policy
  // fixed for the run, --config or the Action's policy-from: base, is one glob for both sides.)
  let beforeOwn: CheckContext["beforeOwn"];
  if (unit.before && opts.policy === undefined) {
    const own = await loader.policy(unit.before, opts.pack);
    if (own.services !== policy.services)
      beforeOwn = { services: own.services, fleet: (await loadFleet(unit.before, own, opts.pack)).written };
  }
  const ctx: CheckContext = {
    policy,
    pack: opts.pack,
    env: opts.env,
    unit: unitInfo,
    before: before?.running ?? null,
    after: after.running,
    written: { before: before?.written ?? null, after: after.written },
    ...(ignore ? { ignore } : {}),
    ...(beforeOwn ? { beforeOwn } : {}),
  };
  const checks = opts.checks ?? CHECKS;
  // What the verdict covers: the seats of the fleet after the unit, sized or not (docs/coverage.md),
  // when the unit is about the fleet (the whole tree, or a change to a file the fleet reads). A change
  // to nothing the fleet reads says nothing about it, as the hook's fast path does not.
  // Every file the fleet read counts too (a compose env_file of any name, a MODEL_CONFIG outside models/).
  const globbed = picomatch(fleetGlobsOf(policy, after.written), { dot: true });
  const read = new Set([...(after.written.readPaths ?? []), ...(before?.written.readPaths ?? [])]);
  const fleetFiles = (p: string): boolean => globbed(p) || read.has(p);
  const coverage =
    unit.tree || unit.kind === "all" || unit.files.some((f) => fleetFiles(f.path) || (f.oldPath !== null && fleetFiles(f.oldPath)))
      ? coverageOf(ctx.after, policy, opts.pack)
      : null;
  if (!unit.tree) return { drafts: checkFleets(ctx, checks, undefined, opts.baseline), treeFiles: 0, coverage };
  const own = await raiseOverTree(checks, ctx, unit.tree);
  // A deploy's context differs from the unit's only in its fleet, which a file scan does not read:
  // its scan would only repeat the unit's own findings (which `place` drops), so it is not run again.
  return {
    drafts: checkFleets(
      ctx,
      checks.filter((c) => !c.scanFiles),
      own.drafts,
      opts.baseline,
    ),
    treeFiles: own.files,
    coverage,
  };
}

/**
 * Seats not sized after the change because a value of their own cannot be read (a setting written
 * through a shell variable or an Ansible lookup), whose files the change touches and whose values it
 * moves (a comment-only edit moves none): such a change cannot be judged, so it answers for the seat's
 * errors. A gap of the fleet's (no card inventory, a model without facts) stays the "new issues only"
 * kind: its own finding says what to add, and every commit is not blocked until it is.
 */
function unsizedTouched(ctx: CheckContext): ReadonlySet<string> {
  const changed = new Set(ctx.unit.files.flatMap((f) => (f.oldPath !== null ? [f.path, f.oldPath] : [f.path])));
  const unread = new Set(
    fleetCoverage(ctx.after, ctx.policy, ctx.pack)
      .seats.filter((s) => s.missing.some((m) => m.what === "setting"))
      .map((s) => s.name),
  );
  const before = new Map((ctx.before?.services ?? []).map((s) => [s.name, valuesOf(s)]));
  const out = new Set<string>();
  for (const s of ctx.after.services) {
    if (!unread.has(s.name) || !filesOfService(s).some((f) => changed.has(f))) continue;
    if (before.get(s.name) !== valuesOf(s)) out.add(s.name);
  }
  return out;
}

/** Every file a service's values come from. */
function filesOfService(s: Service): string[] {
  const settings = Object.values(s.settings).flatMap((x) => (x ? [x.origin.file, ...(x.committed ? [x.committed.file] : [])] : []));
  const entries = s.env.all.map((e) => e.file ?? s.file);
  const invalid = s.invalid.map((x) => x.origin.file);
  return [
    s.file,
    ...(s.definedAt ? [s.definedAt.file] : []),
    ...(s.commandUnread ? [s.commandUnread.file] : []),
    ...settings,
    ...invalid,
    ...entries,
  ];
}

/** What a service is given, as one string: its keys and values, flags, words, cards, host and model. */
function valuesOf(s: Service): string {
  return JSON.stringify([
    s.env.all.map((e) => [e.key, e.value]),
    s.env.flags.map((f) => [f.name, f.value]),
    s.env.positionals.map((p) => p.word),
    s.gpus,
    s.host,
    s.model,
    s.commandUnread?.key ?? null,
  ]);
}

/** The paths whose files the fleet checks see under --all: every path that can change the fleet. */
function fleetGlobsOf(policy: Policy, fleet: FleetState): string[] {
  return fleetChangeGlobsOf(policy, fleet);
}

export async function checkUnits(units: DeployUnit[], opts: RunOptions): Promise<CheckResult> {
  const all: Draft[] = [];
  const run = { ...opts, loader: opts.loader ?? createFleetLoader() };
  const changed = new Set<string>();
  let treeFiles = 0;
  let coverage: Coverage | null = null;
  for (const unit of units) {
    const got = await unitDrafts(unit, run);
    all.push(...got.drafts);
    for (const f of unit.files) changed.add(f.path);
    treeFiles += got.treeFiles;
    if (got.coverage) coverage = got.coverage;
  }
  const findings = runPhase("collect", all).map((d) => d.finding);
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
    filesChecked: changed.size + treeFiles,
    // Service names are shown text (a file name can carry a token or an escape sequence).
    ...(coverage
      ? {
          coverage: {
            ...coverage,
            not_engines: coverage.not_engines.map((n) => unitMasker.text(n)),
            unsized: coverage.unsized.map((n) => unitMasker.text(n)),
          },
        }
      : {}),
  };
}
