// The working fleet as explain, plan, usage and observe show it: the working tree's fleet (and HEAD's,
// for before → after) from the one loader, with the findings a view must not hide (a services glob
// that matches nothing, a compose file docker compose would refuse) raised by their rules and passed
// through the pipeline like any finding: the view's caller prints them, it does not make them up.
import type { FleetState } from "../model/types.js";
import type { Policy } from "../config/policy.js";
import type { RulesPack } from "../rules/pack.js";
import type { Finding } from "../model/types.js";
import type { CheckContext } from "../checks/define.js";
import { fleetNoServices } from "../checks/fleet-no-services.js";
import { composeParse } from "../checks/compose-parse.js";
import { loadFleet } from "../load/fleet.js";
import { policyOf } from "../load/config.js";
import { openSource } from "./source.js";
import { pipelineContext, raiseChecks } from "./run.js";
import { runPhase, runUnitPhases } from "./pipeline.js";

export interface FleetView {
  /** The fleet as it runs (every compose file laid over its env files): what every view shows. */
  running: FleetState;
  /** The fleet as its files say it (plan's moves name the line each value is written on). */
  written: FleetState;
  /** HEAD's fleet as it runs, when the folder is in a repository with commits, else null. */
  before: FleetState | null;
  policy: Policy;
  pack: RulesPack;
  /** What the view must say beside what it shows (fleet/no-services, compose/parse), already through the pipeline. */
  findings: Finding[];
}

/** The rules a view raises itself: without them a view would show an empty or env-only fleet as all clear. */
const VIEW_RULES = [fleetNoServices, composeParse];

/** The working tree's fleet, or null for an empty folder (usage and observe then read their logs alone). */
export async function loadView(opts: { dir: string; policy?: Policy | undefined; pack: RulesPack }): Promise<FleetView | null> {
  const { pack } = opts;
  const source = await openSource(opts.dir, true);
  const [unit] = await source.units({ mode: "all" });
  if (!unit) return null;
  const policy = opts.policy ?? (await policyOf(unit.after, pack));
  const now = await loadFleet(unit.after, policy, pack);
  const head = source.repo && (await source.repo.headSha()) ? await source.repo.snapshot("HEAD") : null;
  const before = head ? (await loadFleet(head, policy, pack)).running : null;
  const ctx: CheckContext = {
    unit: { kind: "all", id: "all", commit: null, commits: [], files: [] },
    before: null,
    after: now.running,
    written: { before: null, after: now.written },
    policy,
    pack,
    env: {},
  };
  const pctx = pipelineContext(policy, pack, now.running.services);
  const findings = runPhase("collect", runUnitPhases(raiseChecks(VIEW_RULES, ctx), pctx)).map((d) => d.finding);
  return { running: now.running, written: now.written, before, policy, pack, findings };
}
