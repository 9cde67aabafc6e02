// The states a deploy unit compares that live in git: the index, a commit's tree, and HEAD as the
// index minus the staged change. Paths are relative to the folder the user named (`--repo`),
// `/`-separated. A read resolves each path to its object id first (from the diff, a listing, or a
// lookup of just those paths), then reads by id through the repository's one blob reader: a path
// git does not have is null, an object it cannot read is a GateError.
import type { ChangeNotice, Snapshot } from "./types.js";
import type { GitRunner } from "./exec.js";
import type { BlobReader } from "./blobs.js";
import type { RawEntry } from "./raw.js";
import { globFilter, type GlobFilter } from "./globs.js";
import { comparePaths } from "./listing.js";
import { modeKind } from "./raw.js";

/** Where a snapshot lives: the toplevel, the folder inside it (`sub/` or "") paths are relative to, and its readers. */
export interface RepoPlace {
  git: GitRunner;
  root: string;
  prefix: string;
  blobs: BlobReader;
}

/** A snapshot that may have found things to skip while listing (symlinks, submodules). */
export interface ListedSnapshot extends Snapshot {
  notices(): ChangeNotice[];
}

interface Entry {
  mode: string;
  oid: string;
}
/** A tree's or the index's entries under the prefix: relative path → mode and object id (all modes). */
export type Entries = Map<string, Entry>;
/** What a diff already told about paths: the entry on one side, or null where that side has none. */
export type Known = Map<string, Entry | null>;

const isRegular = (mode: string): boolean => mode.startsWith("100");

/** A lookup of more paths than this lists everything instead (a command line has limits). */
const MAX_LOOKUP = 64;

/** How a snapshot finds entries: all of them, those at some paths, or those under some folders. */
export interface EntrySource {
  all(): Promise<Entries>;
  /** The entries at exactly these paths (absent ones left out of the map). */
  at(paths: readonly string[]): Promise<Entries>;
  /** At least every entry the filter's globs can match (narrowed by git globs where the source can, else by folders). */
  under(scope: ListScope): Promise<Entries>;
}

/** What a listing is narrowed by: a glob filter's git globs, folders and the globs themselves. */
type ListScope = Pick<GlobFilter, "folders" | "gitGlobs" | "globs" | "matches">;

export function emptySnapshot(): ListedSnapshot {
  return {
    label: "empty",
    list: async () => [],
    read: async (paths) => new Map(paths.map((p) => [p, null])),
    notices: () => [],
  };
}

/** The pathspecs for paths or folders relative to the opened folder: literal, from the toplevel. */
export function pathspecs(place: Pick<RepoPlace, "prefix">, rel: readonly string[] = [""]): string[] {
  if (rel.length === 1 && rel[0] === "" && place.prefix === "") return [];
  return rel.map((p) => `:(top,literal)${(place.prefix + p).replace(/\/$/, "") || "."}`);
}

function strip(place: Pick<RepoPlace, "prefix">, full: string): string | null {
  return full.startsWith(place.prefix) ? full.slice(place.prefix.length) : null;
}

/** The prefix as a git glob: its own `*`, `?`, `[` and `\\` escaped. */
const globLiteral = (s: string): string => s.replace(/[*?[\\]/g, "\\$&");

/**
 * A scope's pathspecs for a command that takes pathspec magic: each git glob, and each glob as a
 * literal path (picomatch matches a path equal to the glob); null when the scope has no git globs.
 */
function globPathspecs(place: Pick<RepoPlace, "prefix">, scope: ListScope): string[] | null {
  if (!scope.gitGlobs) return null;
  const prefix = globLiteral(place.prefix);
  return [...scope.gitGlobs.map((g) => `:(top,glob)${prefix}${g}`), ...scope.globs.map((g) => `:(top,literal)${place.prefix}${g}`)];
}

/**
 * A source over one git listing command; `list(specs)` runs it limited to pathspecs. Lookups are
 * remembered per path, and once everything is listed every question is answered from that.
 * `magic`: the command takes pathspec magic (`ls-files` does, `ls-tree` does not), so a listing is
 * narrowed by git globs rather than by folders.
 */
function listingSource(
  list: (specs: string[]) => Promise<Entries>,
  place: Pick<RepoPlace, "prefix">,
  known: Known | undefined,
  magic: boolean,
  onNarrowed?: (specs: string[]) => void,
): EntrySource {
  let everything: Promise<Entries> | null = null;
  const looked = new Map<string, Entry | null>(known ?? []);
  const narrowed = new Map<string, Promise<Entries>>();
  const covered: { matches: (path: string) => boolean; entries: Promise<Entries> }[] = [];
  const all = (): Promise<Entries> => (everything ??= list(pathspecs(place)));
  return {
    all,
    async at(paths) {
      let missing = [...new Set(paths.filter((p) => !looked.has(p)))];
      // A narrowed listing answers for every path its globs match: present there, or absent.
      for (const c of covered) {
        const inside = missing.filter((p) => c.matches(p));
        if (inside.length === 0) continue;
        const listed = await c.entries;
        for (const p of inside) looked.set(p, listed.get(p) ?? null);
        missing = missing.filter((p) => !looked.has(p));
      }
      if (missing.length > 0) {
        const found = everything || missing.length > MAX_LOOKUP ? await all() : await list(pathspecs(place, missing));
        for (const p of missing) looked.set(p, found.get(p) ?? null);
      }
      const out: Entries = new Map();
      for (const p of paths) {
        const e = looked.get(p);
        if (e) out.set(p, e);
      }
      return out;
    },
    async under(scope) {
      if (everything) return all();
      const specs = (magic ? globPathspecs(place, scope) : null) ?? (scope.folders.includes("") ? null : pathspecs(place, scope.folders));
      if (!specs) return all();
      const key = specs.join("\0");
      let got = narrowed.get(key);
      if (!got) {
        narrowed.set(key, (got = list(specs)));
        onNarrowed?.(specs);
        covered.push({ matches: scope.matches, entries: got });
      }
      return got;
    },
  };
}

/** The `ls-files` of the index limited to pathspecs. */
function indexListArgs(specs: readonly string[]): string[] {
  return ["ls-files", "-s", "-z", "--full-name", "--", ...specs];
}

/** The narrowed listings of the index run at each toplevel (by the policy's globs), in order, once each. */
const narrowedAt = new Map<string, string[][]>();

/**
 * The `ls-files` argument lists this process ran at `root` to list the index by the policy's globs:
 * the fast-path key records them, so the next commit's fast path, when it sees a fleet file staged,
 * starts them while the CLI loads (exec.ts prefetchGit). Only listings of a run at the toplevel.
 */
export function indexListingsAt(root: string): readonly string[][] {
  return narrowedAt.get(root) ?? [];
}

export function indexSource(place: RepoPlace, known?: Known): EntrySource {
  // The index honours GIT_INDEX_FILE, so a hook sees the index being committed; stage 0 only.
  return listingSource(
    async (specs) => {
      // `<mode> <oid> <stage>\t<path>`; a conflict's stages 1-3 are left out.
      return parseListing(place, await place.git.run(indexListArgs(specs)), (head) => head.endsWith(" 0"));
    },
    place,
    known,
    true,
    (specs) => {
      if (place.prefix !== "") return;
      const runs = narrowedAt.get(place.root) ?? [];
      const args = indexListArgs(specs);
      if (!runs.some((r) => r.join("\0") === args.join("\0"))) runs.push(args);
      narrowedAt.set(place.root, runs);
    },
  );
}

export async function treeEntries(place: RepoPlace, sha: string, specs: string[] = pathspecs(place)): Promise<Entries> {
  // ls-tree takes literal paths, not pathspec magic.
  const paths = specs.map((s) => s.replace(/^:\(top,literal\)/, ""));
  // `<mode> <type> <oid>\t<path>`
  return parseListing(place, await place.git.run(["ls-tree", "-r", "-z", "--full-tree", sha, "--", ...paths]), () => true);
}

/**
 * `ls-files -s` / `ls-tree -r` records (mode first, object id last before the tab): 10,000 of them
 * per listing, so split by hand rather than by a regular expression each.
 */
function parseListing(place: Pick<RepoPlace, "prefix">, out: string, keep: (head: string) => boolean): Entries {
  const map: Entries = new Map();
  for (const rec of out.split("\0")) {
    const tab = rec.indexOf("\t");
    if (tab < 0) continue;
    const head = rec.slice(0, tab);
    if (!keep(head)) continue;
    const path = strip(place, rec.slice(tab + 1));
    if (path === null || path === "") continue;
    const space = head.indexOf(" ");
    const oid = /[0-9a-f]{40,64}/.exec(head.slice(space + 1))?.[0];
    if (oid !== undefined) map.set(path, { mode: head.slice(0, space), oid });
  }
  return map;
}

export function treeSource(place: RepoPlace, sha: string, known?: Known): EntrySource {
  return listingSource((specs) => treeEntries(place, sha, specs), place, known, false);
}

/**
 * HEAD without listing HEAD: the index with the staged change undone. `fallback` (HEAD's own tree)
 * answers when the index holds a conflict, which the diff does not describe fully.
 */
export function headSource(index: EntrySource, raw: RawEntry[], before: Known, fallback: () => EntrySource): EntrySource {
  const conflicted = raw.some((e) => e.status === "U");
  let tree: EntrySource | null = null;
  const head = (): EntrySource => (tree ??= fallback());
  const changed = new Set(raw.map((e) => e.path));
  return {
    all: async () => (conflicted ? head().all() : undoStaged(await index.all(), raw)),
    under: async (scope) => (conflicted ? head().under(scope) : undoStaged(await index.under(scope), raw)),
    async at(paths) {
      if (conflicted) return head().at(paths);
      const out: Entries = new Map();
      // A path the change touched: the diff's before side. Any other: HEAD has what the index has.
      const rest = paths.filter((p) => !before.has(p) && !changed.has(p));
      const same = rest.length > 0 ? await index.at(rest) : new Map<string, Entry>();
      for (const p of paths) {
        const e = before.has(p) ? before.get(p) : changed.has(p) ? null : same.get(p);
        if (e) out.set(p, e);
      }
      return out;
    },
  };
}

/** The index's entries with the staged raw diff undone (new sides removed, old sides put back), in git's order. */
function undoStaged(index: Entries, raw: RawEntry[]): Entries {
  const gone = new Set<string>();
  for (const e of raw) if (modeKind(e.newMode) !== "absent") gone.add(e.path);
  const back = new Map<string, Entry>();
  for (const e of raw) if (modeKind(e.oldMode) !== "absent") back.set(e.oldPath, { mode: e.oldMode, oid: e.oldOid });
  // The index is listed in git's order already: merge the few old sides in, no sort of 10,000 paths.
  const inserts = [...back].sort(([a], [b]) => comparePaths(a, b));
  const head: Entries = new Map();
  let i = 0;
  for (const [path, e] of index) {
    while (i < inserts.length && comparePaths((inserts[i] as [string, Entry])[0], path) <= 0) {
      const [p, x] = inserts[i++] as [string, Entry];
      head.set(p, x);
    }
    if (!gone.has(path) && !back.has(path)) head.set(path, e);
  }
  for (; i < inserts.length; i++) head.set(...(inserts[i] as [string, Entry]));
  return head;
}

/** A snapshot read from git: listed by its source, read by object id. */
export function gitSnapshot(place: RepoPlace, label: string, source: EntrySource): ListedSnapshot {
  return {
    label,
    async list(globs) {
      if (globs === undefined) return regularPaths(await source.all());
      const filter = globFilter(globs);
      return regularPaths(await source.under(filter)).filter(filter.matches);
    },
    async read(paths) {
      const entries = await source.at(paths);
      const oids = new Map<string, string | null>();
      for (const p of paths) {
        const e = entries.get(p);
        oids.set(p, e && isRegular(e.mode) ? e.oid : null);
      }
      const blobs = await place.blobs.contents(
        [...oids.values()].filter((o): o is string => o !== null),
        filesByOid(oids),
      );
      return new Map(paths.map((p) => [p, blobs.get(oids.get(p) ?? "") ?? null]));
    },
    notices: () => [],
  };
}

function regularPaths(entries: Entries): string[] {
  const out: string[] = [];
  for (const [p, e] of entries) if (isRegular(e.mode)) out.push(p);
  return out;
}

/** path → object id, turned round for messages about an object that cannot be read. */
export function filesByOid(oids: ReadonlyMap<string, string | null>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [path, oid] of oids) if (oid !== null && !out.has(oid)) out.set(oid, path);
  return out;
}
