// The one API between the engine and its front ends (the CLI, the Action): a check, an audit, the
// working fleet's views. A front end parses its arguments, calls one of these, and prints or sets
// outputs; it assembles no fleet and runs no pipeline step. Like ESLint's `ESLint` class, this is
// the only thing a command calls.
import { openRepo, type Repo, type Shard } from "../git/index.js";
import type { Source } from "./source.js";
import type { DeployUnit, Selection, Snapshot } from "../git/types.js";
import type { Policy } from "../config/policy.js";
import type { LoadedFleet } from "../model/types.js";
import type { RulesPack } from "../rules/pack.js";
import type { IgnoreList } from "../secrets/ignore.js";
import { loadPolicy } from "../config/load.js";
import { createFleetLoader, type FleetLoader } from "../load/fleet.js";
import { checkUnits, ignoreOf } from "./run.js";
import { auditResult, createAuditor, type AuditResult, type AuditRow } from "./audit.js";
import type { CheckResult, FailOn } from "./result.js";
import type { Baseline } from "./baseline-file.js";
import { fixFileTexts } from "../fix/texts.js";
import { CONFIG_NAMES, policyOf } from "../load/config.js";
import { IGNORE_FILE } from "../secrets/ignore.js";
import { keywordSieve } from "../secrets/scan.js";
import { allUnit } from "../git/all.js";
import type { ListedSnapshot } from "../git/snapshots.js";
import { unitsUnderBase } from "./policy-base.js";
import { fixAndRecheck, type FixRun } from "./fix-run.js";
import { createMasker } from "../secrets/mask.js";
import { resolve } from "node:path";

export interface CheckRequest {
  /** The folder the run reads (`--repo`, resolved): `--fix` writes under it. */
  dir: string;
  source: Source;
  selection: Selection;
  failOn: FailOn;
  pack: RulesPack;
  /** The process environment the override variable is read from (empty in CI: never honoured there). */
  env: Readonly<Record<string, string | undefined>>;
  /** A policy fixed for the run (--config, the Action's policy-from: base); default: each unit's own. */
  policy?: Policy;
  /** The snapshot whose policy files (kvgate.yaml, .kvgateignore) hold for every unit (policy-from: base). */
  policyBase?: Snapshot;
  /** `--baseline FILE`'s keys. */
  baseline?: Baseline;
}

/** A check that ran: its result, and what a front end may still ask of it. */
export interface CheckRun {
  result: CheckResult;
  units: DeployUnit[];
  /** The run's fleet loader (the hook's fast-path key is made from the fleet this run loaded). */
  loader: FleetLoader;
  /** Checks again with the same request over other units (`--fix`'s re-check). */
  again(units: DeployUnit[]): Promise<CheckResult>;
  /** The text of each file the open findings' value fixes edit, in the newest unit's tree (SARIF `fixes`). */
  fixTexts(): Promise<Map<string, string>>;
  /** The override variable as the run's policy names it, for the text that explains allowed findings. */
  overrideName(): Promise<string>;
  /** `--fix`: writes the findings' value fixes into the working tree and checks again (src/engine/fix-run.ts). */
  fix(): Promise<FixRun>;
  /** The newest unit's fleet (the head of a range) and the policy it was checked under: the same
   *  fleet the checks judged, for a view beside the result (the Action's card table). */
  newest(): Promise<{ fleet: LoadedFleet; policy: Policy } | null>;
}

export async function runCheck(req: CheckRequest): Promise<CheckRun> {
  const read = await Promise.all((await req.source.units(req.selection)).map(wholeTreeOnPolicyChange));
  const units = req.policyBase ? unitsUnderBase(read, req.policyBase) : read;
  const loader = createFleetLoader();
  const options = (l: FleetLoader) => ({
    mode: req.selection.mode,
    failOn: req.failOn,
    pack: req.pack,
    env: req.env,
    loader: l,
    ...(req.policy ? { policy: req.policy } : {}),
    ...(req.baseline ? { baseline: req.baseline } : {}),
  });
  const result = await checkUnits(units, options(loader));
  const newest = units[units.length - 1];
  return {
    result,
    units,
    loader,
    again: (other) => checkUnits(other, options(createFleetLoader())),
    fixTexts: async () => (newest ? fixFileTexts(result.findings, newest.after) : new Map()),
    fix: async () =>
      fixAndRecheck({
        source: req.source,
        root: req.source.repo ? req.source.repo.root : req.dir,
        base: req.source.repo ? resolve(req.source.repo.root, req.source.repo.prefix) : req.dir,
        selection: req.selection,
        units,
        first: result,
        masker: createMasker(
          req.pack.detectors(),
          req.policy ?? (newest ? await loader.policy(newest.after, req.pack) : loadPolicy(null, "kvgate.yaml", req.pack)),
        ),
        check: (other) => checkUnits(other, options(createFleetLoader())),
      }),
    async newest() {
      if (!newest) return null;
      const policy = req.policy ?? (await loader.policy(newest.after, req.pack));
      return { fleet: await loader.load(newest.after, policy, req.pack), policy };
    },
    async overrideName() {
      if (req.policy) return req.policy.secrets.override;
      if (result.counts.allowed > 0 && newest) return (await loader.policy(newest.after, req.pack)).secrets.override;
      return loadPolicy(null, "kvgate.yaml", req.pack).secrets.override;
    },
  };
}

/** The files that are the gate's policy: kvgate.yaml (or .kvgate.yaml) and .kvgateignore. */
const POLICY_FILES: readonly string[] = [...CONFIG_NAMES, IGNORE_FILE];

/**
 * A change that adds or edits the gate's policy is checked as `--all` (docs/coverage.md#the-policy-change):
 * the commit that turns the gate on, or changes what it reads, must show the fleet's whole state (every
 * finding, every seat, every file's secrets), not "no findings" because the change itself is small. The
 * unit keeps its commit, so its trailers (waivers, the override record) still count.
 */
async function wholeTreeOnPolicyChange(unit: DeployUnit): Promise<DeployUnit> {
  if (
    unit.kind === "all" ||
    !unit.files.some((f) => POLICY_FILES.includes(f.path) || (f.oldPath !== null && POLICY_FILES.includes(f.oldPath)))
  )
    return unit;
  if (!isListed(unit.after)) return unit;
  // The change stays a change (its before side, its files: the rules about what moved still run), with
  // the whole tree's files for the secret scan and every finding reported.
  const whole = await allUnit(unit.after);
  return { ...unit, ...(whole.tree ? { tree: whole.tree } : {}), policyChange: true };
}

function isListed(s: Snapshot): s is ListedSnapshot {
  return typeof (s as Partial<ListedSnapshot>).notices === "function";
}

export interface AuditRequest {
  repo: Repo;
  range: string;
  shard?: Shard;
  pack: RulesPack;
  /** A policy fixed for the run (--config); default: the working tree's kvgate.yaml. */
  policy?: Policy;
  /** Told the number of commits first (when asked for: `total`), then each commit as it is audited. */
  progress?: { total: boolean; start(total: number): void; tick(): void; done(): void };
}

/** `kvgate audit`: every commit of the range re-scanned under the current policy and classified. */
export async function runAudit(req: AuditRequest): Promise<AuditResult> {
  const { repo, range, shard } = req;
  // One git log for the whole range; only the added lines are read, never whole blobs. It starts
  // now, so git walks the range and writes the first diffs while the policy below is parsed; its
  // errors (a bad range) are still reported after the policy's. Read through the secret scan's
  // sieve: only the added lines that may hold a secret are decoded.
  const commits = repo.addedLinesInRange(range, shard, keywordSieve(req.pack.detectors()))[Symbol.asyncIterator]();
  const first = commits.next();
  first.catch(() => undefined); // awaited in the loop below
  const rows: AuditRow[] = [];
  try {
    const worktree = await repo.snapshot("worktree");
    const policy = req.policy ?? (await policyOf(worktree, req.pack));
    const ignore: IgnoreList | null = await ignoreOf(worktree);
    const bar = req.progress;
    if (bar) bar.start(bar.total && !shard ? (await repo.commitsInRange(range)).length : 0);
    const audit = createAuditor(policy, req.pack, ignore);
    for (let next = await first; next.done !== true; next = await commits.next()) {
      rows.push(audit(next.value).row);
      bar?.tick();
    }
    bar?.done();
  } finally {
    // Stopped early (a bad policy, a failed commit): the rest of the log is not read, and git is ended.
    await commits.return?.(undefined);
  }
  return auditResult(shard ? `${range} (shard ${shard.index}/${shard.count})` : range, rows);
}

export { openRepo };
export { openSource, type Source } from "./source.js";
export { loadView, type FleetView } from "./view.js";
