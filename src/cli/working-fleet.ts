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

export interface WorkingFleet {
  fleet: FleetState;
  /** The committed state (HEAD) when the folder is in a repository with commits, else null. */
  before: FleetState | null;
  policy: Policy;
  pack: RulesPack;
}

export async function loadWorkingFleet(opts: { repo?: string | undefined; config?: string | undefined }): Promise<WorkingFleet> {
  const pack = loadPack();
  const source = await openSource(await repoDirOf(opts.repo), true);
  const [unit] = await source.units({ mode: "all" });
  if (!unit) throw new GateError("nothing to read: the folder is empty");
  const policy = policyFromFile(opts.config, pack) ?? (await policyOf(unit.after, pack));
  const fleet = await loadFleet(unit.after, policy, pack);
  const head = source.repo && (await source.repo.headSha()) ? await source.repo.snapshot("HEAD") : null;
  const before = head ? await loadFleet(head, policy, pack) : null;
  return { fleet, before, policy, pack };
}
