// The `--all` unit: nothing before, every regular file of the tree added whole.
import type { ChangedFile, DeployUnit } from "./types.js";
import type { ListedSnapshot } from "./snapshots.js";
import { allLines, looksBinary } from "./changes.js";

const CHUNK = 256;

/**
 * A file of the tree whose text and lines are made when a check asks and dropped after: a tree of
 * 100,000 files keeps its bytes (about their size on disk), not a decoded string and a line object per
 * line of every file at once (issue 13 item 7: 741 MiB at 100k files before).
 */
function lazyFile(path: string, buf: Buffer): ChangedFile {
  const binary = looksBinary(buf);
  return {
    path, oldPath: null, status: "added", before: null, binary, size: buf.length,
    get after() {
      return binary ? null : buf.toString("utf8");
    },
    get addedLines() {
      return binary ? [] : allLines(buf.toString("utf8"));
    },
  };
}

export async function allUnit(after: ListedSnapshot): Promise<DeployUnit> {
  const paths = await after.list();
  const files: ChangedFile[] = [];
  // Chunks keep open file handles and memory bounded on big trees.
  for (let i = 0; i < paths.length; i += CHUNK) {
    const chunk = paths.slice(i, i + CHUNK);
    const bufs = await after.read(chunk);
    for (const path of chunk) {
      const buf = bufs.get(path);
      if (!buf) continue;
      files.push(lazyFile(path, buf));
    }
  }
  return { kind: "all", id: "all", commit: null, commits: [], before: null, after, files, notices: after.notices() };
}
