// A changed playbook is one deploy of every service it sets: the fleet as the playbook would leave it
// (each service it sets replaced by its deployed version) is checked again as one deploy unit; the
// pipeline's `place` step reports what that adds at the playbook's lines.
import type { FleetState, ParsedEnv, PlaybookRead, Service } from "../model/types.js";
import type { CheckContext } from "../checks/define.js";
import { playbooksInUnit } from "../model/playbooks.js";
import { composesInUnit } from "../model/composes.js";
import { asPlaybookRead } from "../compose/index.js";
import { deployedEnv } from "../playbook/overlay.js";

/** Builds a Service from a deployed env: model/build.ts buildService, bound to the run's pack and policy. */
export type BuildService = (env: ParsedEnv, name: string) => Service;

/** The fleet as this playbook deploys it: each service it sets is replaced by (or, when it has no env
 *  file, added as) the service built from the committed env file with the playbook's edits laid over. */
function deployState(state: FleetState, read: PlaybookRead, build: BuildService): FleetState {
  const services = [...state.services];
  for (const d of read.deploys) {
    const i = services.findIndex((s) => s.name === d.service);
    const committed = i >= 0 ? (services[i] as Service).env : null;
    const deployed = build(deployedEnv(d, committed), d.service);
    if (i >= 0) services[i] = deployed;
    else services.push(deployed);
  }
  return { ...state, services };
}

/** The contexts to run the sizing checks over: one per changed playbook or compose file that deploys
 *  something, before = the unit's before, after = the fleet as that file deploys it. */
export function playbookContexts(ctx: CheckContext, build: BuildService): { playbook: PlaybookRead; ctx: CheckContext }[] {
  return (
    [...playbooksInUnit(ctx), ...composesInUnit(ctx).map(asPlaybookRead)]
      .filter((p) => p.deploys.length > 0)
      // The playbook and compose checks already ran over the unit; in a deploy context they would only repeat.
      .map((p) => ({ playbook: p, ctx: { ...ctx, after: { ...deployState(ctx.after, p, build), playbooks: [], composes: [] } } }))
  );
}

/** The fleet as its compose files deploy it (each file in path order, each service it sets replaced by
 *  its deployed version): what runs, and so what `explain` and `plan` show, each value at the compose
 *  line (or env file line) that sets it. Playbooks are not laid over: they say how a file is written
 *  on the host, and the env file they write is what `explain` already shows. */
export function composeDeployedState(state: FleetState, build: BuildService): FleetState {
  let out = state;
  for (const r of state.composes ?? []) out = deployState(out, asPlaybookRead(r), build);
  return out;
}
