// The files of an `--all` unit, all of them: the engine reads a tree a chunk at a time (TreeFiles),
// tests that look at every file gather the chunks.
import type { ChangedFile, DeployUnit } from "../../src/git/index.js";

export async function treeFilesOf(unit: DeployUnit | undefined): Promise<ChangedFile[]> {
  if (!unit?.tree) throw new Error(`unit ${unit?.id ?? "(none)"} has no tree: only --all units do`);
  const out: ChangedFile[] = [];
  for await (const chunk of unit.tree.chunks()) out.push(...chunk);
  return out;
}
