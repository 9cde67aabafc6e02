// The working tree's files as `check --fix` reads and writes them: through the door (src/git/door.ts),
// as every file of the tree is read. Paths are relative to the folder checked; a path that leaves it,
// a symlink (the file's or a folder's) that leads outside the repository, or a file that is not a
// regular one (a FIFO, a device) is refused, never followed.
import { FileDoor, isRefusal } from "../git/door.js";
import { READ_CAPS } from "./caps.js";

/** What --fix edits is a fleet file: the largest cap of any kind. */
const FIX_CAP = { bytes: Math.max(...Object.values(READ_CAPS)), kind: "files --fix edits" };

export interface WorkingFiles {
  /** A file's text; an Error saying why when it is not there or the door refuses it. */
  read(path: string): string;
  write(path: string, text: string): void;
}

/** The working files of the folder `base` inside the repository at `root` (a plain folder: both the same). */
export function workingFiles(root: string, base: string): WorkingFiles {
  const door = new FileDoor(root, base);
  return {
    read(path) {
      const got = door.read(path, FIX_CAP);
      if (got === null) throw Object.assign(new Error(`ENOENT: ${path} is not there`), { code: "ENOENT" });
      if (isRefusal(got)) throw new Error(got.message);
      return got.toString("utf8");
    },
    write: (path, text) => door.write(path, text),
  };
}
