// The states a deploy unit reads from disk: the working tree of a repository (`--all`) and a plain
// folder that is not in one. Paths are relative to the folder the user named, `/`-separated.
import { lstatSync, readdirSync, type Dirent, type Stats } from "node:fs";
import { readdir } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { GateError } from "../errors.js";
import type { ChangeNotice, ReadLimits } from "./types.js";
import { ERRNO_WHY as WHY, FileDoor, isRefusal } from "./door.js";
import { globFilter, isUnder } from "./globs.js";
import { pathspecs, type ListedSnapshot, type RepoPlace } from "./snapshots.js";

const SKIP_DIRS = new Set([".git", "node_modules"]);
/** A path with one of SKIP_DIRS as a folder (or name) along it. */
const IN_SKIPPED_DIR = /(^|\/)(\.git|node_modules)(\/|$)/;

interface Found {
  files: string[];
  notices: ChangeNotice[];
}

/** Files on disk: read through the door, listed by a lister (git ls-files, or a folder walk) limited to some folders. */
function diskSnapshot(door: FileDoor, lister: (folders: readonly string[]) => Promise<Found>): ListedSnapshot {
  let everything: Promise<Found> | null = null;
  let notices: ChangeNotice[] = [];
  return {
    label: "worktree",
    async list(globs) {
      if (globs === undefined) {
        const l = await (everything ??= lister([""]));
        notices = l.notices;
        return l.files;
      }
      const filter = globFilter(globs);
      const l = await (everything ?? lister(filter.folders));
      return l.files.filter(filter.matches);
    },
    async read(paths, limits) {
      return new Map(paths.map((p) => [p, readDiskFile(door, p, limits)]));
    },
    notices: () => notices,
  };
}

/**
 * A file through the door (src/git/door.ts). One that is there but cannot be read stops the gate
 * (exit 2): dropping it would check a fleet without it, and an unreadable kvgate.yaml would silently
 * fall back to the defaults. One the door refuses is told to the loader's limits (a finding at the
 * file), or, read without them, stops the gate too.
 * Read synchronously: a tree's files are mostly small, and fs/promises' readFile costs five trips
 * through the thread pool per file (100,000 files: 5.4 s against 0.7 s for sync reads).
 */
function readDiskFile(door: FileDoor, path: string, limits: ReadLimits | undefined): Buffer | null {
  const got = door.read(path, limits?.capOf(path));
  if (!isRefusal(got)) return got;
  if (!limits) throw new GateError(got.message, { hint: got.hint });
  limits.refused(path, got);
  return null;
}

/** Tracked plus untracked-not-ignored files of a working tree. */
export function worktreeSnapshot(place: RepoPlace): ListedSnapshot {
  const base = join(place.root, place.prefix);
  const door = new FileDoor(place.root, base);
  return diskSnapshot(door, async (folders) => {
    const args = ["ls-files", "-z", "--full-name", "--cached", "--others", "--exclude-standard", "--", ...pathspecs(place, folders)];
    const out = await place.git.run(args);
    // One pass over 100,000 names, no array per name: a listing's garbage is what sets --all's peak.
    const rel = new Set<string>();
    for (const p of out.split("\0")) {
      if (p === "" || !p.startsWith(place.prefix)) continue;
      const r = p.slice(place.prefix.length);
      if (!IN_SKIPPED_DIR.test(r)) rel.add(r);
    }
    return classify(base, door, [...rel].sort());
  });
}

/** Every regular file under a folder that is not in a git repository. */
export function folderSnapshot(dir: string): ListedSnapshot {
  return diskSnapshot(new FileDoor(dir), async (folders) => {
    const found: string[] = [];
    const notices: ChangeNotice[] = [];
    const walk = async (abs: string): Promise<void> => {
      const entries = await readdir(abs, { withFileTypes: true }).catch((err: NodeJS.ErrnoException) => {
        const rel = relative(dir, abs).split(sep).join("/") || ".";
        throw new GateError(
          `the folder ${rel} cannot be listed: ${err.code ?? err.message}${WHY[err.code ?? ""] ? ` (${WHY[err.code ?? ""]})` : ""}`,
          {
            hint: `make ${rel} readable by the user running kvgate (chmod a+rx), or check a folder you can read`,
            cause: err,
          },
        );
      });
      for (const e of entries) {
        const full = join(abs, e.name);
        const rel = relative(dir, full).split(sep).join("/");
        if (e.isDirectory()) {
          // Only into folders on the way to (or under) the ones asked for.
          if (!SKIP_DIRS.has(e.name) && (isUnder(rel, folders) || folders.some((f) => f.startsWith(`${rel}/`)))) await walk(full);
        } else if (!isUnder(rel, folders)) continue;
        else if (e.isSymbolicLink()) notices.push({ path: rel, message: "symlink: skipped (only regular files are checked)" });
        else if (e.isFile()) found.push(rel);
      }
    };
    await walk(dir);
    return { files: found.sort(), notices };
  });
}

/**
 * Each listed path's kind on disk, read from its folder's listing (one readdir a folder, not one
 * lstat a file: 100,000 files in 1,000 folders) and synchronously: 100,000 lstat calls at once
 * through fs/promises held every pending request in memory (about 400 MiB).
 */
function classify(base: string, door: FileDoor, paths: string[]): Found {
  const files: string[] = [];
  const notices: ChangeNotice[] = [];
  const kindOf = kindsOnDisk(base);
  for (const p of paths) {
    // A tracked file whose folder was replaced by a symlink on disk: never read through the link.
    const slash = p.lastIndexOf("/");
    const kind = slash > 0 && door.throughLink(p.slice(0, slash)) ? "symlink" : kindOf(p);
    if (kind === "file") files.push(p);
    else if (kind === "symlink") notices.push({ path: p, message: "symlink: skipped (only regular files are checked)" });
    else if (kind === "folder")
      notices.push({ path: p.replace(/\/$/, ""), message: "submodule: skipped (check it in its own repository)" });
    // null: tracked but deleted on disk (or not a file, link or folder): nothing to check
  }
  return { files, notices };
}

type DiskKind = "file" | "symlink" | "folder" | null;

/** Folders' listings kept: paths come sorted, so a folder's files are mostly asked for together. */
const FOLDERS_KEPT = 64;

/**
 * A path's kind as lstat tells it, answered from its folder's entries (readdir with file types). A
 * folder that cannot be listed, a name it does not hold, and a path with a trailing slash (a nested
 * repository: lstat follows a link there) are asked of lstat itself.
 */
function kindsOnDisk(base: string): (path: string) => DiskKind {
  const folders = new Map<string, Map<string, Dirent> | null>();
  const entriesOf = (folder: string): Map<string, Dirent> | null => {
    let got = folders.get(folder);
    if (got !== undefined) return got;
    try {
      got = new Map(readdirSync(join(base, folder), { withFileTypes: true }).map((d) => [d.name, d]));
    } catch {
      got = null;
    }
    if (folders.size >= FOLDERS_KEPT) folders.clear();
    folders.set(folder, got);
    return got;
  };
  return (path) => {
    const slash = path.lastIndexOf("/");
    const entries = path.endsWith("/") ? null : entriesOf(slash < 0 ? "" : path.slice(0, slash));
    // A name the listing lacks is asked of lstat too: a case-insensitive disk finds `A.env` as `a.env`.
    const d = entries?.get(path.slice(slash + 1)) ?? lstatOrNull(join(base, path));
    if (!d) return null;
    return d.isFile() ? "file" : d.isSymbolicLink() ? "symlink" : d.isDirectory() ? "folder" : null;
  };
}

/** null when the path cannot be looked at (gone, or a parent that is not a folder). */
function lstatOrNull(abs: string): Stats | null {
  try {
    return lstatSync(abs, { throwIfNoEntry: false }) ?? null;
  } catch {
    return null;
  }
}
