// What `check --staged` does around the verdict: it records it, keyed by the staged tree, for
// `kvgate hook prepare-commit-msg` to turn into the commit's Kvgate-Verdict trailer. The tree and
// the folder are asked of git while the checks run, so the hook does not wait for them afterwards.
import type { CheckResult } from "../../engine/result.js";
import type { Selection } from "../../git/types.js";
import type { Source } from "../../engine/api.js";
import { saveVerdict, verdictRecordOf } from "../../git/verdict-store.js";
import type { DeployUnit } from "../../git/types.js";
import type { FleetLoader } from "../../load/fleet.js";
import type { RulesPack } from "../../rules/pack.js";
import { CONFIG_NAMES } from "../../config/load.js";
import picomatch from "picomatch";
import { fleetChangeGlobsOf } from "../../load/fleet-globs.js";
import { indexListingsAt } from "../../git/snapshots.js";
import { configKeyOf, saveFastPathKey, type CompiledGlob } from "../fast-path-key.js";

/** The build's identity (version, rules pack, sources), set by build.mjs; absent when run from sources. */
declare const __KVGATE_BUILD__: string | undefined;

export interface VerdictRecording {
  save(result: CheckResult): Promise<void>;
  /**
   * What the next commit's fast path needs of the policy (src/cli/fast-path-key.ts), from this run's
   * staged kvgate.yaml; only for a run at the toplevel with the snapshot's own config (no --config).
   */
  saveFastPathKey(unit: DeployUnit, loader: FleetLoader, pack: RulesPack): Promise<void>;
}

export function startVerdictRecording(source: Source, selection: Selection): VerdictRecording {
  const repo = source.repo;
  if (selection.mode !== "staged" || !repo) return { async save() {}, async saveFastPathKey() {} };
  const where = Promise.all([repo.writeTree(), repo.gitPath("kvgate")]);
  // Reported when awaited in save(); never an unhandled rejection if the checks fail first.
  where.catch(() => {});
  return {
    async save(result) {
      const [tree, dir] = await where;
      const record = verdictRecordOf(result, tree);
      // `--repo <sub-folder>` checked part of the tree: its pass is not the tree's pass (the trailer
      // would then vouch for files the run never read). Its fail still stands for the whole tree.
      if (repo.prefix !== "" && record.verdict !== "fail") return;
      saveVerdict(dir, tree, record);
    },
    async saveFastPathKey(unit, loader, pack) {
      if (typeof __KVGATE_BUILD__ === "undefined" || repo.prefix !== "") return;
      const [policy, configs, [, dir]] = await Promise.all([loader.policy(unit.after, pack), unit.after.read([...CONFIG_NAMES]), where]);
      // The fleet is the one this run checked (the loader keeps it): no second read.
      const fleet = (await loader.load(unit.after, policy, pack)).written;
      // The globs, and every file this run read outside them (a MODEL_CONFIG beside the env files, a
      // role's template, an env_file): a staged change to any of them takes the full path.
      const fleetGlobs = [...new Set([...fleetChangeGlobsOf(policy, fleet), ...(fleet.readPaths ?? []).map(literalGlob)])];
      const compile = (globs: readonly string[]): CompiledGlob[] =>
        globs.map((g) => {
          const re = picomatch.makeRe(g, { dot: true });
          return { source: re.source, flags: re.flags };
        });
      saveFastPathKey(dir, {
        version: 2,
        build: __KVGATE_BUILD__,
        names: [...CONFIG_NAMES],
        config: configKeyOf(configs),
        fleet: fleetGlobs,
        exclude: policy.secrets.exclude,
        fleetRes: compile(fleetGlobs),
        excludeRes: compile(policy.secrets.exclude),
        listings: indexListingsAt(repo.root).map((a) => [...a]),
      });
    },
  };
}

/** A path as a glob that matches exactly it (picomatch's special characters escaped). */
function literalGlob(path: string): string {
  return path.replace(/[\\*?[\]{}()!+@]/g, "\\$&");
}
