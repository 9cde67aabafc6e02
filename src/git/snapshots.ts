// The states a deploy unit compares: a commit's tree, the index, the working tree, a plain folder,
// and the empty tree. Paths are relative to the folder the user named (`--repo`), `/`-separated.
import { lstat, readdir, readFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import type { ChangeNotice, Snapshot } from "./types.js";
import type { GitRunner } from "./exec.js";
import { readBlobs } from "./catfile.js";

/** Where a snapshot lives: the toplevel, and the folder inside it (`sub/` or "") paths are relative to. */
export interface RepoPlace {
  git: GitRunner;
  root: string;
  prefix: string;
}

/** A snapshot that may have found things to skip while listing (symlinks, submodules). */
export interface ListedSnapshot extends Snapshot {
  notices(): ChangeNotice[];
}

const SKIP_DIRS = new Set([".git", "node_modules"]);

export function pathspec(place: RepoPlace): string[] {
  return place.prefix === "" ? [] : ["--", `:(top,literal)${place.prefix}`];
}

function strip(place: RepoPlace, full: string): string {
  return full.startsWith(place.prefix) ? full.slice(place.prefix.length) : full;
}

function cached<T>(make: () => Promise<T>): () => Promise<T> {
  let p: Promise<T> | null = null;
  return () => (p ??= make());
}

async function readByName(
  place: RepoPlace,
  paths: string[],
  nameOf: (path: string) => string,
): Promise<Map<string, Buffer | null>> {
  const names = paths.map(nameOf);
  const blobs = await readBlobs(place.root, names);
  return new Map(paths.map((p, i) => [p, blobs.get(names[i] as string) ?? null]));
}

export function emptySnapshot(): ListedSnapshot {
  return {
    label: "empty",
    list: async () => [],
    read: async (paths) => new Map(paths.map((p) => [p, null])),
    notices: () => [],
  };
}

/** A committed tree: `git ls-tree -r` once for list(), cat-file for reads. */
export function treeSnapshot(place: RepoPlace, sha: string, label: string = sha): ListedSnapshot {
  const entries = cached(async () => {
    const out = await place.git.run(["ls-tree", "-r", "-z", "--full-tree", sha, ...(place.prefix ? ["--", place.prefix] : [])]);
    const map = new Map<string, string>();
    for (const rec of out.split("\0")) {
      const m = /^(\d+) (\w+) ([0-9a-f]+)\t([\s\S]*)$/.exec(rec);
      if (m && m[2] === "blob" && (m[1] as string).startsWith("100") && (m[4] as string).startsWith(place.prefix))
        map.set(strip(place, m[4] as string), m[3] as string);
    }
    return map;
  });
  let listed: Map<string, string> | null = null;
  return {
    label,
    list: async () => [...(listed = await entries()).keys()],
    read: (paths) => readByName(place, paths, (p) => listed?.get(p) ?? `${sha}:${place.prefix}${p}`),
    notices: () => [],
  };
}

/** The index (honours GIT_INDEX_FILE, so a hook sees the index being committed). */
export function indexSnapshot(place: RepoPlace): ListedSnapshot {
  const entries = cached(async () => {
    const out = await place.git.run(["ls-files", "-s", "-z", "--full-name", ...pathspec(place)]);
    const map = new Map<string, string>();
    for (const rec of out.split("\0")) {
      const m = /^(\d+) ([0-9a-f]+) (\d)\t([\s\S]*)$/.exec(rec);
      if (m && m[3] === "0" && (m[1] as string).startsWith("100")) map.set(strip(place, m[4] as string), m[2] as string);
    }
    return map;
  });
  let listed: Map<string, string> | null = null;
  return {
    label: "index",
    list: async () => [...(listed = await entries()).keys()],
    read: (paths) => readByName(place, paths, (p) => listed?.get(p) ?? `:${place.prefix}${p}`),
    notices: () => [],
  };
}

/** Files on disk: read with fs, listed by a lister (git ls-files, or a folder walk). */
function diskSnapshot(base: string, label: string, lister: () => Promise<{ files: string[]; notices: ChangeNotice[] }>): ListedSnapshot {
  const listing = cached(lister);
  let notices: ChangeNotice[] = [];
  return {
    label,
    list: async () => {
      const l = await listing();
      notices = l.notices;
      return l.files;
    },
    read: async (paths) => {
      const out = new Map<string, Buffer | null>();
      await Promise.all(
        paths.map(async (p) => {
          out.set(p, await readFile(join(base, p)).catch(() => null));
        }),
      );
      return new Map(paths.map((p) => [p, out.get(p) ?? null]));
    },
    notices: () => notices,
  };
}

/** Tracked plus untracked-not-ignored files of a working tree. */
export function worktreeSnapshot(place: RepoPlace): ListedSnapshot {
  const base = join(place.root, place.prefix);
  return diskSnapshot(base, "worktree", async () => {
    const out = await place.git.run(["ls-files", "-z", "--full-name", "--cached", "--others", "--exclude-standard", ...pathspec(place)]);
    const paths = [...new Set(out.split("\0").filter((p) => p !== "" && p.startsWith(place.prefix)).map((p) => strip(place, p)))];
    return classify(base, paths.filter((p) => !p.split("/").some((s) => SKIP_DIRS.has(s))));
  });
}

/** Every regular file under a folder that is not in a git repository. */
export function folderSnapshot(dir: string): ListedSnapshot {
  return diskSnapshot(dir, "worktree", async () => {
    const found: string[] = [];
    const notices: ChangeNotice[] = [];
    const walk = async (abs: string): Promise<void> => {
      const entries = await readdir(abs, { withFileTypes: true });
      for (const e of entries) {
        const full = join(abs, e.name);
        const rel = relative(dir, full).split(sep).join("/");
        if (e.isDirectory()) {
          if (!SKIP_DIRS.has(e.name)) await walk(full);
        } else if (e.isSymbolicLink()) notices.push({ path: rel, message: "symlink: skipped (only regular files are checked)" });
        else if (e.isFile()) found.push(rel);
      }
    };
    await walk(dir);
    return { files: found.sort(), notices };
  });
}

async function classify(base: string, paths: string[]): Promise<{ files: string[]; notices: ChangeNotice[] }> {
  const kinds = await Promise.all(paths.map((p) => lstat(join(base, p)).catch(() => null)));
  const files: string[] = [];
  const notices: ChangeNotice[] = [];
  paths.forEach((p, i) => {
    const st = kinds[i];
    if (!st) return; // tracked but deleted on disk: nothing to check
    if (st.isFile()) files.push(p);
    else if (st.isSymbolicLink()) notices.push({ path: p, message: "symlink: skipped (only regular files are checked)" });
    else if (st.isDirectory()) notices.push({ path: p.replace(/\/$/, ""), message: "submodule: skipped (check it in its own repository)" });
  });
  return { files, notices };
}
