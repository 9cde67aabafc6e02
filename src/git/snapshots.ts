// The states a deploy unit compares: a commit's tree, the index, the working tree, a plain folder,
// and the empty tree. Paths are relative to the folder the user named (`--repo`), `/`-separated.
import { lstat, readdir, readFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { GateError } from "../errors.js";
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

export function emptySnapshot(): ListedSnapshot {
  return {
    label: "empty",
    list: async () => [],
    read: async (paths) => new Map(paths.map((p) => [p, null])),
    notices: () => [],
  };
}

/** Blobs by object name, shared by one repository's snapshots: a blob is fetched once. */
export class BlobCache {
  private readonly blobs = new Map<string, Buffer | null>();
  constructor(private readonly root: string) {}

  async get(names: string[], paths?: ReadonlyMap<string, string>): Promise<Map<string, Buffer | null>> {
    const missing = [...new Set(names.filter((n) => !this.blobs.has(n)))];
    const fetched = missing.length > 0 ? await readBlobs(this.root, missing, paths) : new Map<string, Buffer | null>();
    // `:path` names the index, which can change under a long-lived Repo: never keep those.
    for (const [n, b] of fetched) if (!n.startsWith(":")) this.blobs.set(n, b);
    return new Map(names.map((n) => [n, this.blobs.get(n) ?? fetched.get(n) ?? null]));
  }
}

/** A tree's or the index's entries under the prefix: relative path → mode and object id (all modes). */
export type Entries = Map<string, { mode: string; oid: string }>;

const isRegular = (mode: string): boolean => mode.startsWith("100");

export interface GitSnapshotSource {
  label: string;
  /** The full listing; loaded once, and only when list() is called (or `eager()` says it is cheap). */
  entries: () => Promise<Entries>;
  /** Object ids already known from the diff (null: no regular file there), used before any listing. */
  known?: Map<string, string | null>;
  /** The object name to read a path by when neither the listing nor `known` has it. */
  nameOf: (fullPath: string) => string;
  eager?: () => boolean;
}

export function gitSnapshot(place: RepoPlace, cache: BlobCache, src: GitSnapshotSource): ListedSnapshot {
  const load = cached(src.entries);
  let listed: Entries | null = null;
  const list = async (): Promise<Entries> => (listed ??= await load());
  return {
    label: src.label,
    list: async () => [...(await list())].filter(([, e]) => isRegular(e.mode)).map(([p]) => p),
    read: async (paths) => {
      if (!listed && src.eager?.()) await list();
      const names = new Map<string, string | null>();
      for (const p of paths) {
        if (listed) {
          const e = listed.get(p);
          names.set(p, e && isRegular(e.mode) ? e.oid : null);
        } else if (src.known?.has(p)) names.set(p, src.known.get(p) ?? null);
        else names.set(p, src.nameOf(place.prefix + p));
      }
      const blobs = await cache.get([...names.values()].filter((n): n is string => n !== null), filesByName(names));
      return new Map(paths.map((p) => [p, blobs.get(names.get(p) ?? "") ?? null]));
    },
    notices: () => [],
  };
}

/** path → object name, turned round for messages about an object that cannot be read. */
export function filesByName(names: ReadonlyMap<string, string | null>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [path, name] of names) if (name !== null && !out.has(name)) out.set(name, path);
  return out;
}

export async function treeEntries(place: RepoPlace, sha: string): Promise<Entries> {
  const out = await place.git.run(["ls-tree", "-r", "-z", "--full-tree", sha, ...(place.prefix ? ["--", place.prefix] : [])]);
  const map: Entries = new Map();
  for (const rec of out.split("\0")) {
    const m = /^(\d+) \w+ ([0-9a-f]+)\t([\s\S]*)$/.exec(rec);
    if (m && (m[3] as string).startsWith(place.prefix)) map.set(strip(place, m[3] as string), { mode: m[1] as string, oid: m[2] as string });
  }
  return map;
}

/** The index (honours GIT_INDEX_FILE, so a hook sees the index being committed); stage 0 only. */
export async function indexEntries(place: RepoPlace): Promise<Entries> {
  const out = await place.git.run(["ls-files", "-s", "-z", "--full-name", ...pathspec(place)]);
  const map: Entries = new Map();
  for (const rec of out.split("\0")) {
    const m = /^(\d+) ([0-9a-f]+) (\d)\t([\s\S]*)$/.exec(rec);
    if (m && m[3] === "0") map.set(strip(place, m[4] as string), { mode: m[1] as string, oid: m[2] as string });
  }
  return map;
}

export function treeSnapshot(place: RepoPlace, cache: BlobCache, sha: string, label: string = sha, known?: Map<string, string | null>): ListedSnapshot {
  return gitSnapshot(place, cache, { label, entries: () => treeEntries(place, sha), known, nameOf: (p) => `${sha}:${p}` });
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
          out.set(p, await readDiskFile(base, p));
        }),
      );
      return new Map(paths.map((p) => [p, out.get(p) ?? null]));
    },
    notices: () => notices,
  };
}

/** Errors that mean "no file there" (absent, or a parent is not a folder): null, like a tree's absent path. */
const ABSENT = new Set(["ENOENT", "ENOTDIR"]);
const WHY: Record<string, string> = {
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EISDIR: "it is a folder",
  ELOOP: "too many levels of symlinks",
  EIO: "input/output error",
};

/**
 * A file that is there but cannot be read stops the gate (exit 2): dropping it would check a fleet
 * without it, and an unreadable kvgate.yaml would silently fall back to the defaults.
 */
async function readDiskFile(base: string, path: string): Promise<Buffer | null> {
  try {
    return await readFile(join(base, path));
  } catch (err) {
    const code = String((err as NodeJS.ErrnoException).code ?? "");
    if (ABSENT.has(code)) return null;
    throw new GateError(`${path} cannot be read: ${code || (err as Error).message}${WHY[code] ? ` (${WHY[code]})` : ""}`, {
      hint: `make ${path} readable by the user running kvgate (e.g. chmod a+r ${path}), or remove it from the folder being checked`,
      cause: err,
    });
  }
}

/** Tracked plus untracked-not-ignored files of a working tree. */
export function worktreeSnapshot(place: RepoPlace): ListedSnapshot {
  const base = join(place.root, place.prefix);
  return diskSnapshot(base, "worktree", async () => {
    const out = await place.git.run(["ls-files", "-z", "--full-name", "--cached", "--others", "--exclude-standard", ...pathspec(place)]);
    const paths = [...new Set(out.split("\0").filter((p) => p !== "" && p.startsWith(place.prefix)).map((p) => strip(place, p)))].sort();
    return classify(base, paths.filter((p) => !p.split("/").some((s) => SKIP_DIRS.has(s))));
  });
}

/** Every regular file under a folder that is not in a git repository. */
export function folderSnapshot(dir: string): ListedSnapshot {
  return diskSnapshot(dir, "worktree", async () => {
    const found: string[] = [];
    const notices: ChangeNotice[] = [];
    const walk = async (abs: string): Promise<void> => {
      const entries = await readdir(abs, { withFileTypes: true }).catch((err: NodeJS.ErrnoException) => {
        const rel = relative(dir, abs).split(sep).join("/") || ".";
        throw new GateError(`the folder ${rel} cannot be listed: ${err.code ?? err.message}${WHY[err.code ?? ""] ? ` (${WHY[err.code ?? ""]})` : ""}`, {
          hint: `make ${rel} readable by the user running kvgate (chmod a+rx), or check a folder you can read`,
          cause: err,
        });
      });
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
