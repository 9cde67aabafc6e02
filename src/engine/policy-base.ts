// policy-from: base (the Action): every unit's snapshots read kvgate.yaml and .kvgateignore from the base
// commit, so a change is checked under the policy it is changing and cannot loosen it for itself.
import type { DeployUnit, Snapshot } from "../git/types.js";
import { globFilter } from "../git/globs.js";
import { CONFIG_NAMES } from "../load/config.js";
import { IGNORE_FILE } from "../secrets/ignore.js";

/** The files that are the policy: what a change may not loosen for itself. */
const POLICY_FILES: readonly string[] = [...CONFIG_NAMES, IGNORE_FILE];

/**
 * `snapshot` with the policy files read from `base` instead: whatever reads kvgate.yaml or
 * .kvgateignore from a unit's snapshot (the fleet loader, the secret scan's ignore list) gets the base's.
 */
export function withPolicyOf(snapshot: Snapshot, base: Snapshot, files: readonly string[] = POLICY_FILES): Snapshot {
  const isPolicy = (p: string): boolean => files.includes(p);
  return {
    label: snapshot.label,
    async list(globs) {
      const [own, theirs] = await Promise.all([snapshot.list(globs), base.list(globs)]);
      const wanted = globs ? globFilter(globs) : null;
      const fromBase = theirs.filter((p) => isPolicy(p) && (!wanted || wanted.matches(p)));
      return [...own.filter((p) => !isPolicy(p)), ...fromBase].sort();
    },
    async read(paths, limits) {
      const policyPaths = paths.filter(isPolicy);
      const [own, theirs] = await Promise.all([
        snapshot.read(
          paths.filter((p) => !isPolicy(p)),
          limits,
        ),
        policyPaths.length > 0 ? base.read(policyPaths, limits) : new Map<string, Buffer | null>(),
      ]);
      const out = new Map<string, Buffer | null>();
      for (const p of paths) out.set(p, (isPolicy(p) ? theirs.get(p) : own.get(p)) ?? null);
      return out;
    },
  };
}

/** Every unit's snapshots with the base's policy files. */
export function unitsUnderBase(units: readonly DeployUnit[], base: Snapshot): DeployUnit[] {
  return units.map((u) => ({ ...u, after: withPolicyOf(u.after, base), before: u.before ? withPolicyOf(u.before, base) : null }));
}
