// What a command reads: a git repository (or a folder inside one), or, for --all and the views, a plain
// folder that is not in a repository.
import { openRepo, openTree, type Repo } from "../git/index.js";
import type { DeployUnit, Selection } from "../git/types.js";

export interface Source {
  /** null for a plain folder (only `--all` works there). */
  repo: Repo | null;
  units(selection: Selection): Promise<DeployUnit[]>;
}

export async function openSource(dir: string, allowPlainFolder: boolean): Promise<Source> {
  if (allowPlainFolder) return openTree(dir);
  const repo = await openRepo(dir);
  return { repo, units: (s) => repo.units(s) };
}
