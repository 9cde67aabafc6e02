// What `check --staged` does around the verdict: it records it, keyed by the staged change (HEAD and
// the staged diff the run read: no `git write-tree`), for `kvgate hook prepare-commit-msg` to turn into
// the commit's Kvgate-Verdict trailer. The folder is asked of git while the checks run.
import type { CheckResult } from "../../engine/result.js";
import type { Selection } from "../../git/types.js";
import type { Source } from "../../engine/api.js";
import { saveVerdict, verdictRecordOf } from "../../git/verdict-store.js";
import { GateError } from "../../errors.js";
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
  const where = Promise.all([repo.indexChecksum(), repo.gitPath("kvgate")]);
  // Reported when awaited in save(); never an unhandled rejection if the checks fail first.
  where.catch(() => {});
  return {
    async save(result) {
      const [index, dir] = await where;
      // git commits no conflicted index: a verdict for one would name nothing (as write-tree refused).
      const unmerged = await repo.unmergedPaths();
      if (unmerged.length > 0) {
        throw new GateError(`the index has unmerged paths (${unmerged.join(", ")}): no verdict can be recorded for it`, {
          hint: "resolve the conflict and stage the result (git add), then run the check again",
        });
      }
      const record = verdictRecordOf(result, await repo.stagedKey(), index);
      // `--repo <sub-folder>` checked part of the tree: its pass is not the tree's pass (the trailer
      // would then vouch for files the run never read). Its fail still stands for the whole tree.
      if (repo.prefix !== "" && record.verdict !== "fail") return;
      saveVerdict(dir, record);
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
