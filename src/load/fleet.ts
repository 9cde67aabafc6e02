// Loads one side of a change (a Snapshot) into the typed fleet model: every service env file, the
// radiance ledger facts, the playbooks (every input kind of ./inputs.ts), in one batched read, with
// its two faces: as written, and as it runs (./running.ts).
import type { Snapshot } from "../git/types.js";
import type { FleetState, LoadedFleet } from "../model/types.js";
import type { Policy } from "../config/policy.js";
import type { RulesPack } from "../rules/pack.js";
import { emptyFleet } from "../model/build.js";
import { loadPolicy } from "../config/load.js";
import type { DecodedFile } from "./decode.js";
import { fleetLimits } from "./caps.js";
import { findConfig } from "./config.js";
import { FLEET_INPUTS } from "./inputs.js";
import picomatch from "picomatch";
import { COMPOSE_SIDE_GLOBS, ENV_ANYWHERE_GLOBS, listingGlobs } from "./fleet-globs.js";
import type { LoadContext } from "./input.js";
import { runningFleet, serviceBuilder } from "./running.js";
import { PLAYBOOK_LISTING_GLOBS } from "./playbooks.js";

export async function loadFleet(snapshot: Snapshot, policy: Policy, pack: RulesPack): Promise<LoadedFleet> {
  const written = await loadWritten(snapshot, policy, pack);
  return { written, running: runningFleet(written, serviceBuilder(pack, policy)) };
}

/** The fleet as its files say it: every input kind read and added, no overlay. */
async function loadWritten(snapshot: Snapshot, policy: Policy, pack: RulesPack): Promise<FleetState> {
  // Only the paths the policy's globs can match: git lists the folders they start with, so the cost
  // follows the fleet, not the repository (100,000 tracked files cost what 1,000 do).
  const first = await snapshot.list([...listingGlobs(policy), ...PLAYBOOK_LISTING_GLOBS]);
  const isCompose = picomatch(policy.compose, { dot: true });
  const isService = picomatch(policy.services, { dot: true });
  const isUnit = picomatch(policy.systemd, { dot: true });
  // A second, narrow listing when the first one calls for it: what compose files pull in, or, when the
  // services glob matches nothing, the env files that are elsewhere (fleet/no-services names their glob).
  const second = [
    ...(first.some((p) => isCompose(p)) ? COMPOSE_SIDE_GLOBS : []),
    // A unit's EnvironmentFile= (or docker run --env-file) may name any env file of the repository.
    ...(first.some((p) => isService(p)) && !first.some((p) => isUnit(p)) ? [] : ENV_ANYWHERE_GLOBS),
  ];
  const listing = second.length > 0 ? [...new Set([...first, ...(await snapshot.list([...new Set(second)]))])].sort() : first;
  const ctx: LoadContext = { snapshot, listing, policy, pack };
  // Which kinds want each path: its cap is theirs (src/load/caps.ts), and a file the door refuses is
  // a problem at the file, which its kind reports.
  const kinds = new Map<string, string[]>();
  const want = (p: string, kind: string) => void (kinds.get(p)?.push(kind) ?? kinds.set(p, [kind]));
  for (const input of FLEET_INPUTS) for (const p of input.paths(ctx)) want(p, input.kind);
  const limits = fleetLimits(kinds);
  const files = new Map<string, DecodedFile>();
  for (const [p, buf] of await snapshot.read([...kinds.keys()], limits)) files.set(p, limits.decode(p, buf));
  const more = new Set<string>();
  for (const input of FLEET_INPUTS)
    for (const p of input.morePaths?.(files, ctx) ?? [])
      if (!files.has(p)) {
        more.add(p);
        want(p, input.kind);
      }
  if (more.size > 0) for (const [p, buf] of await snapshot.read([...more], limits)) files.set(p, limits.decode(p, buf));
  const fleet = emptyFleet(policy);
  fleet.paths = listing;
  // Every file read, whichever input asked for it (a MODEL_CONFIG outside models/, a template, an
  // env_file): what the hook's fast path must treat as the fleet's (src/cli/commands/check-hooks.ts).
  fleet.readPaths = [...files.keys()].sort();
  for (const input of FLEET_INPUTS) input.add(fleet, files, ctx);
  return fleet;
}

/**
 * Loads for one run. A range's unit N+1 `before` is unit N's `after` (same label): it is loaded
 * once. The policy read from a snapshot is shared by every snapshot with the same config text, so
 * units that do not touch kvgate.yaml also share one Policy object (which `load` keys by).
 * One loader per run: within it a label must name one state (labels are shas, `index`, `HEAD`,
 * `worktree`, `empty`), which holds while the repository is not changed under the run.
 */
export interface FleetLoader {
  /** loadFleet, memoised by `snapshot.label` and the identity of policy and pack. */
  load(snapshot: Snapshot, policy: Policy, pack: RulesPack): Promise<LoadedFleet>;
  /** The snapshot's own policy, memoised by the config file's name and text (and the pack). */
  policy(snapshot: Snapshot, pack: RulesPack): Promise<Policy>;
}

/** Fleets kept: the engine walks units in order, so the previous unit's after is all it asks again. */
const FLEETS_KEPT = 4;
const POLICIES_KEPT = 16;

export function createFleetLoader(): FleetLoader {
  const fleets = new Map<string, { policy: Policy; pack: RulesPack; fleet: Promise<LoadedFleet> }>();
  const policies = new Map<string, { pack: RulesPack; policy: Policy }>();
  return {
    load(snapshot, policy, pack) {
      const hit = fleets.get(snapshot.label);
      if (hit && hit.policy === policy && hit.pack === pack) {
        fleets.delete(snapshot.label);
        fleets.set(snapshot.label, hit);
        return hit.fleet;
      }
      const fleet = loadFleet(snapshot, policy, pack);
      // A failed load is not kept: the error is the caller's, and a retry must read again.
      fleet.catch(() => {
        if (fleets.get(snapshot.label)?.fleet === fleet) fleets.delete(snapshot.label);
      });
      keep(fleets, snapshot.label, { policy, pack, fleet }, FLEETS_KEPT);
      return fleet;
    },
    async policy(snapshot, pack) {
      const c = await findConfig(snapshot);
      const key = `${c.file}\0${c.text ?? "\u0001none"}`;
      const hit = policies.get(key);
      if (hit && hit.pack === pack) return hit.policy;
      const policy = loadPolicy(c.text, c.file, pack);
      keep(policies, key, { pack, policy }, POLICIES_KEPT);
      return policy;
    },
  };
}

function keep<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  for (const k of map.keys()) {
    if (map.size <= max) break;
    map.delete(k);
  }
}
