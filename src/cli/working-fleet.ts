// The fleet as the working tree has it (and, in a repository, as HEAD has it): what explain and plan
// read. --config replaces the tree's kvgate.yaml, as in check.
import { GateError } from "../errors.js";
import { loadPack, policyFromFile, repoDirOf } from "./context.js";
import { openSource } from "./source.js";
import { loadFleet } from "../load/fleet.js";
import { policyOf } from "../load/config.js";
import type { FleetState } from "../model/types.js";
import type { Policy } from "../config/policy.js";
import type { RulesPack } from "../rules/pack.js";
import { noServicesMessage } from "../checks/fleet-no-services.js";
import { composeDeployedState } from "../engine/playbook-deploys.js";
import { buildService } from "../model/build.js";

export interface WorkingFleet {
  /** The fleet as it runs: the env files with what each compose file deploys laid over them. */
  fleet: FleetState;
  /** The fleet as its env files say, before the compose deploys (plan's moves name both lines). */
  written: FleetState;
  /** The committed state (HEAD) when the folder is in a repository with commits, else null. */
  before: FleetState | null;
  policy: Policy;
  pack: RulesPack;
}

type FleetOptions = { repo?: string | undefined; config?: string | undefined };

export async function loadWorkingFleet(opts: FleetOptions): Promise<WorkingFleet> {
  const fleet = await loadWorkingFleetIfAny(opts);
  if (!fleet) throw new GateError("nothing to read: the folder is empty");
  return fleet;
}

/**
 * The same, or null for an empty folder: `usage` and `observe` read logs and metrics first and
 * compare with the fleet only when there is one.
 */
export async function loadWorkingFleetIfAny(opts: FleetOptions): Promise<WorkingFleet | null> {
  const pack = loadPack();
  const source = await openSource(await repoDirOf(opts.repo), true);
  const [unit] = await source.units({ mode: "all" });
  if (!unit) return null;
  const policy = policyFromFile(opts.config, pack) ?? (await policyOf(unit.after, pack));
  const written = await loadFleet(unit.after, policy, pack);
  const deployed = (state: FleetState): FleetState => composeDeployedState(state, (env, name) => buildService(env, pack, policy, name));
  const fleet = deployed(written);
  // What explain and plan show is the fleet the glob found: an empty one is said, never shown as "all clear".
  if (fleet.services.length === 0) process.stderr.write(`warning fleet/no-services: ${noServicesMessage(policy.services, fleet.paths)}\n`);
  // A compose file kvgate cannot load deploys nothing here: say so, since its seats are then shown as
  // their env files have them (check refuses the file: compose/parse).
  for (const r of written.composes ?? []) {
    const parse = r.problems.filter((p) => p.kind === "parse");
    const [first] = parse;
    if (!first) continue;
    const more = parse.length > 1 ? ` (and ${parse.length - 1} more: kvgate check --all lists them)` : "";
    process.stderr.write(
      `error compose/parse: ${first.file}:${first.line}: ${first.message}${more}; explain and plan show what the env files say instead of what ${r.path} deploys\n`,
    );
  }
  const head = source.repo && (await source.repo.headSha()) ? await source.repo.snapshot("HEAD") : null;
  const before = head ? deployed(await loadFleet(head, policy, pack)) : null;
  return { fleet, written, before, policy, pack };
}
