// The `--all` unit: nothing before, every regular file of the tree added whole. The files are not
// read here: the engine asks for them a chunk at a time (TreeFiles), so the tree is never held whole.
import type { ChangedFile, DeployUnit, TreeFiles } from "./types.js";
import type { ListedSnapshot } from "./snapshots.js";
import { allLines, looksBinary } from "./changes.js";

/** Files per read: enough to keep the reads batched, few enough that a chunk's texts stay small. */
const CHUNK = 256;

export async function allUnit(after: ListedSnapshot): Promise<DeployUnit> {
  const paths = await after.list();
  return {
    kind: "all",
    id: "all",
    commit: null,
    commits: [],
    before: null,
    after,
    files: [],
    tree: treeFiles(after, paths),
    notices: after.notices(),
  };
}

function treeFiles(after: ListedSnapshot, paths: readonly string[]): TreeFiles {
  const read = (some: readonly string[]): Promise<ChangedFile[]> => readAdded(after, some);
  return {
    paths,
    read,
    async *chunks() {
      for (let i = 0; i < paths.length; i += CHUNK) yield await read(paths.slice(i, i + CHUNK));
    },
  };
}

/** Each path's file as added whole: its text and every line, or binary with no text; a missing path left out. */
async function readAdded(after: ListedSnapshot, paths: readonly string[]): Promise<ChangedFile[]> {
  const bufs = await after.read([...paths]);
  const files: ChangedFile[] = [];
  for (const path of paths) {
    const buf = bufs.get(path);
    if (!buf) continue;
    const binary = looksBinary(buf);
    const text = binary ? null : buf.toString("utf8");
    files.push({
      path,
      oldPath: null,
      status: "added",
      before: null,
      after: text,
      binary,
      size: buf.length,
      addedLines: text === null ? [] : allLines(text),
    });
  }
  return files;
}
