// The `--all` unit: nothing before, every regular file of the tree added whole.
import type { ChangedFile, DeployUnit } from "./types.js";
import type { ListedSnapshot } from "./snapshots.js";
import { allLines, looksBinary } from "./changes.js";

const CHUNK = 256;

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
  }
  return { kind: "all", id: "all", commit: null, commits: [], before: null, after, files, notices: after.notices() };
}
