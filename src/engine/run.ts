// The engine: for each deploy unit, load the fleet before and after, run every check, and turn the
// reports into findings. It never prints and never exits; the CLI does both.
import type { DeployUnit } from "../git/types.js";
import type { FleetState, Finding } from "../model/types.js";
import type { Policy } from "../config/policy.js";
import type { RulesPack } from "../rules/pack.js";
import type { CheckContext } from "../checks/define.js";
import { CHECKS, ruleById } from "../checks/registry.js";
import { countFindings, verdictOf, type CheckResult, type FailOn, type Mode } from "./result.js";
import { applyWaivers, dedupe, sortFindings, toFinding, waiversOf } from "./postprocess.js";
import { createFleetLoader, type FleetLoader } from "../load/fleet.js";
import { VERSION } from "../version.js";
import { playbookContexts, playbookFindings } from "./playbook-deploys.js";
import { buildService } from "../model/build.js";
import { createMasker } from "../secrets/mask.js";

export interface RunOptions {
  mode: Mode;
  failOn: FailOn;
  pack: RulesPack;
  env: Readonly<Record<string, string | undefined>>;
  /** A policy fixed for the whole run (--config, or the Action's policy-from: base). */
  policy?: Policy;
  /** One per run, so a range's unit N+1 reuses unit N's after as its before. */
  loader?: FleetLoader;
}

/** Runs every check over one context; a throwing check is an internal error (the gate fails closed). */
export function runChecks(ctx: CheckContext, commit: string | null): Finding[] {
  const out: Finding[] = [];
  for (const check of CHECKS) {
    let reports;
    try {
      reports = check.run(ctx);
    } catch (e) {
      throw new Error(`internal error in check ${check.id}: ${(e as Error).message}`, { cause: e });
    }
    for (const r of reports) out.push(toFinding(check, r, commit));
  }
  return out;
}

/** Identity of a finding regardless of where in history it was seen. */
function baselineKey(f: Finding): string {
  return `${f.rule}|${f.fingerprint}`;
}

export async function checkUnit(unit: DeployUnit, opts: RunOptions): Promise<Finding[]> {
  const loader = opts.loader ?? createFleetLoader();
  const policy = opts.policy ?? (await loader.policy(unit.after, opts.pack));
  const after = await loader.load(unit.after, policy, opts.pack);
  const before: FleetState | null = unit.before ? await loader.load(unit.before, policy, opts.pack) : null;
  const commit = unit.commit?.sha ?? null;
  const base = { policy, pack: opts.pack, env: opts.env };
  const unitInfo = { kind: unit.kind, id: unit.id, commit: unit.commit, commits: unit.commits, files: unit.files };
  const ctx: CheckContext = { ...base, unit: unitInfo, before, after };
  let findings = runChecks(ctx, commit);
  // A changed playbook is one deploy of every service it sets: the sizing rules run again over the
  // fleet as the playbook would leave it, and report at the playbook's lines.
  const main = [...findings];
  for (const p of playbookContexts(ctx, (env, name) => buildService(env, opts.pack, policy, name))) {
    findings.push(...playbookFindings(main, runChecks(p.ctx, commit), p.playbook));
  }
  // A change is answerable for what it introduces: a finding the before state already had (checked
  // as a whole tree, with the same policy) is not the change's. `--all` reports everything.
  // (Only needed when there is something to filter: a clean change, the common case, skips it.)
  if (before && findings.length > 0) {
    const seen = new Set(runChecks({ ...base, unit: { ...unitInfo, files: [] }, before: null, after: before }, commit).map(baselineKey));
    findings = findings.filter((f) => !seen.has(baselineKey(f)));
  }
  const waivers = waiversOf(unit.commits, policy.waivers.trailer);
  for (const w of waivers) {
    if (!ruleById(w.rule)) {
      findings.push({
        rule: "waiver/unknown-rule",
        severity: "error",
        status: "open",
        message: `${policy.waivers.trailer}: "${w.rule}" is not a kvgate rule; name a rule id that \`kvgate rules\` lists`,
        file: null,
        line: null,
        service: null,
        commit: w.commit,
        fingerprint: `waiver:${w.rule}`,
        data: { rule: w.rule },
      });
    }
  }
  applyWaivers(findings, waivers);
  const masker = createMasker(opts.pack.detectors(), policy);
  return findings.map((f) => masker.finding(f));
}

export async function checkUnits(units: DeployUnit[], opts: RunOptions): Promise<CheckResult> {
  const all: Finding[] = [];
  const run = { ...opts, loader: opts.loader ?? createFleetLoader() };
  for (const unit of units) all.push(...(await checkUnit(unit, run)));
  const findings = sortFindings(dedupe(all));
  return {
    tool: "kvgate",
    version: VERSION,
    mode: opts.mode,
    verdict: verdictOf(findings, opts.failOn),
    failOn: opts.failOn,
    counts: countFindings(findings),
    findings,
    units: units.map((u) => u.id),
    filesChecked: new Set(units.flatMap((u) => u.files.map((f) => f.path))).size,
  };
}
