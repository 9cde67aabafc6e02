// A repository opened at a folder (maybe a sub-folder): deploy units for --staged, --commit,
// --range and --all, plus the few plumbing helpers later features need.
import { readFile, stat } from "node:fs/promises";
import { resolve } from "node:path";
import { GateError } from "../errors.js";
import type { CommitInfo, DeployUnit, LineSieve, Selection, Snapshot } from "./types.js";
import { gitRunner, type GitRunner } from "./exec.js";
import { readCommits } from "./commits.js";
import { fullChanges, type Changes } from "./changes.js";
import { readSettledDiff, settleDiff } from "./bigfiles.js";
import { allUnit } from "./all.js";
import { BlobReader } from "./blobs.js";
import { RangeReader, type RangeCommit } from "./range.js";
import { folderSnapshot, worktreeSnapshot } from "./disk.js";
import { PROBED_PATHS, REPO_PROBE_ARGS } from "./probe.js";
import { takeStagedHandoff, type StagedHandoff } from "./handoff.js";
import { writeTreeOf } from "./index-tree.js";
import { readRaw } from "./diffstream.js";
import { indexChecksum, stagedKey } from "./staged-key.js";
import type { RawEntry } from "./raw.js";
import {
  emptySnapshot,
  gitSnapshot,
  headSource,
  indexSource,
  pathspecs,
  treeSource,
  type Known,
  type ListedSnapshot,
  type RepoPlace,
} from "./snapshots.js";

const SHALLOW_HINT =
  "the clone is shallow: fetch the history with `actions/checkout` `fetch-depth: 0`, or `git fetch --deepen=<n>` / `git fetch --unshallow`";

const SHA1_EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
const EMPTY_TREE: Record<string, string> = {
  sha1: SHA1_EMPTY_TREE,
  sha256: "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321",
};

/** A repository as opened: HEAD is read once by openRepo; snapshots read git when asked. */
export interface Repo {
  /** Absolute path of the working tree's toplevel. */
  readonly root: string;
  /** The opened folder relative to root, `/`-terminated, or "" at the toplevel. */
  readonly prefix: string;
  units(selection: Selection): Promise<DeployUnit[]>;
  /** A snapshot by name: `HEAD`, `index`, `worktree`, `empty`, or any commit-ish. */
  snapshot(name: string): Promise<Snapshot>;
  headSha(): Promise<string | null>;
  /** The full sha of a commit-ish; GateError naming it when it does not resolve. */
  revParse(rev: string): Promise<string>;
  mergeBase(a: string, b: string): Promise<string | null>;
  isShallow(): Promise<boolean>;
  /** Commits of `A..B` (or `A...B`: those of B since the merge base), oldest first. */
  commitsInRange(range: string): Promise<CommitInfo[]>;
  /**
   * The per-commit units of a range as they stream from ONE `git log` (what `units` with
   * `unit: "commit"` collects): a caller that handles one unit at a time holds one unit in memory.
   */
  unitsInRange(range: string): AsyncIterable<DeployUnit>;
  /**
   * Secrets-only work over a range: per commit its info and changed files with `before`/`after`
   * null, but `path`, `status`, `binary` and `addedLines` set, and `size` (of the after blob) for
   * binary and streamed files only (null for the rest). No blob is read: those few sizes come from
   * the shared cat-file process, which a history of text changes never starts. With the secret
   * scan's sieve, `addedLines` holds only the lines it keeps, binary is git's own word (a `Binary
   * files` line, or a NUL in an added line) and no size is looked up (null).
   */
  addedLinesInRange(range: string, shard?: Shard, sieve?: LineSieve): AsyncIterable<RangeCommit>;
  /** `git write-tree` of the index: the tree a commit of it records (the Kvgate-Verdict trailer's). */
  writeTree(): Promise<string>;
  /**
   * The staged change's key (HEAD and the staged raw diff: ./staged-key.ts), the verdict's name: from
   * the staged unit's own diff when it was read at the toplevel, else from a raw diff of its own.
   */
  stagedKey(): Promise<string>;
  /** The staged raw diff's unmerged paths (a conflict), which no verdict can be recorded for. */
  unmergedPaths(): Promise<string[]>;
  /** The index file's checksum (./staged-key.ts), null when it has none. */
  indexChecksum(): Promise<string | null>;
  /** Absolute `git rev-parse --git-path NAME` (right inside linked worktrees). */
  gitPath(name: string): Promise<string>;
  /** A file's text at a commit (path relative to the opened folder), or null when absent. */
  readConfigAt(rev: string, path: string): Promise<string | null>;
  /** `git config --get KEY`, or null when unset. */
  configValue(key: string): Promise<string | null>;
}

/** `audit --shard I/N`: the I-th of N blocks of a range (1-based). */
export interface Shard {
  index: number;
  count: number;
}

/** The I-th of N near-equal contiguous blocks of `items` (the first ones one longer when N does not divide). */
export function shardBlock<T>(items: readonly T[], shard: Shard): T[] {
  const size = Math.floor(items.length / shard.count);
  const extra = items.length % shard.count;
  const i = shard.index - 1;
  const start = i * size + Math.min(i, extra);
  return items.slice(start, start + size + (i < extra ? 1 : 0));
}

/** Opens the repository holding `dir`; GateError when `dir` is missing or not in a git work tree. */
export async function openRepo(dir: string): Promise<Repo> {
  const found = await findRepo(dir);
  if (!found) {
    throw new GateError(`${resolve(dir)} is not in a git repository`, {
      hint: "pass --repo with a folder inside a git repository, or use --all to check a plain folder",
    });
  }
  return found;
}

/** For `--all`: a repository when there is one, else the plain folder. `units` accepts only `all` then. */
export interface Tree {
  repo: Repo | null;
  /** Absolute path of the folder. */
  dir: string;
  units(selection: Selection): Promise<DeployUnit[]>;
}

export async function openTree(dir: string): Promise<Tree> {
  const repo = await findRepo(dir);
  const abs = resolve(dir);
  if (repo) return { repo, dir: abs, units: (s) => repo.units(s) };
  return {
    repo: null,
    dir: abs,
    async units(selection) {
      if (selection.mode !== "all") {
        throw new GateError(`${abs} is not in a git repository, so --${selection.mode} has nothing to compare`, {
          hint: "use --all to check every file of a plain folder, or run inside a git repository",
        });
      }
      return [await allUnit(folderSnapshot(abs))];
    },
  };
}

async function findRepo(dir: string): Promise<Repo | null> {
  const abs = resolve(dir);
  const st = await stat(abs).catch(() => null);
  if (!st?.isDirectory()) throw new GateError(`no such folder: ${abs}`, { hint: "pass --repo with an existing folder" });
  let out: string;
  try {
    out = await gitRunner(abs, { quietExit1: true }).run([...REPO_PROBE_ARGS]);
  } catch (err) {
    const stderr = String(err instanceof GateError ? err.cause : err);
    if (/not a git repository/i.test(stderr)) return null;
    if (/must be run in a work tree/i.test(stderr)) {
      throw new GateError(`${abs} is not inside a work tree (a bare repository or a .git folder)`, {
        hint: "pass --repo with a folder of a checked-out repository",
        cause: stderr,
      });
    }
    if (/dubious ownership/i.test(stderr)) {
      throw new GateError(`git refuses to read ${abs}: the repository belongs to another user`, {
        hint: `mark it safe: git config --global --add safe.directory '${abs}'`,
        cause: stderr,
      });
    }
    throw err;
  }
  const lines = out.split("\n");
  const [root = "", prefix = "", shallow = "", format = "sha1"] = lines;
  const head = lines[4 + PROBED_PATHS.length] ?? "";
  const place: RepoPlace = { git: gitRunner(root), root, prefix, blobs: new BlobReader(root) };
  // The hook's fast path, when it declined in this process, already has the staged diff and tree.
  const handoff = prefix === "" ? takeStagedHandoff(root) : null;
  const repo = new GitRepo(place, shallow === "true", EMPTY_TREE[format] ?? SHA1_EMPTY_TREE, handoff);
  repo.knowHead(/^[0-9a-f]{40,64}$/.test(head) ? head : null);
  PROBED_PATHS.forEach((name, i) => {
    const path = lines[4 + i];
    if (path) repo.knowGitPath(name, path);
  });
  return repo;
}

class GitRepo implements Repo {
  readonly root: string;
  readonly prefix: string;
  private shallowSet: Promise<Set<string>> | null = null;
  private head: Promise<string | null> | null = null;
  private ranges: RangeReader | null = null;

  constructor(
    private readonly place: RepoPlace,
    private readonly shallow: boolean,
    private readonly emptyTree: string,
    private readonly handoff: StagedHandoff | null = null,
  ) {
    this.root = place.root;
    this.prefix = place.prefix;
  }

  private get git(): GitRunner {
    return this.place.git;
  }

  async units(selection: Selection): Promise<DeployUnit[]> {
    switch (selection.mode) {
      case "staged":
        return [await this.stagedUnit()];
      case "commit":
        return [await this.commitUnit(await this.commitInfo(await this.revParse(selection.rev)))];
      case "range":
        return this.rangeUnits(selection.range, selection.unit);
      case "all":
        return [await allUnit(worktreeSnapshot(this.place))];
      default:
        return selection satisfies never;
    }
  }

  /**
   * One diff, in one process: `--cached` (the index against HEAD; against the empty tree before the
   * first commit), or two commits.
   */
  private async changes(what: string[]): Promise<Changes> {
    return fullChanges(this.prefix, this.place.blobs, await readSettledDiff(this.root, this.place.blobs, what, pathspecs(this.place)));
  }

  private async stagedUnit(): Promise<DeployUnit> {
    const handed = this.handoff;
    const [head, changes, config] = await Promise.all([
      this.headSha(),
      // The fast path's diff left big blobs undiffed: settled here as the full path's own read is
      // (a big text file taken for binary would go unscanned).
      handed
        ? settleDiff(this.root, this.place.blobs, ["--cached"], [], handed.diff).then((d) => fullChanges(this.prefix, this.place.blobs, d))
        : this.changes(["--cached"]),
      // A lookup that failed only leaves those names to be looked up again.
      handed ? handed.config.catch((): Known => new Map()) : null,
    ]);
    // The config names' entries the fast path looked up are known too (the diff's own entries win).
    const index = indexSource(this.place, config ? new Map([...config, ...changes.after]) : changes.after);
    const after = gitSnapshot(this.place, "index", index);
    // HEAD is the index minus the staged change: its reads and listing cost no process of their own.
    const before = head
      ? gitSnapshot(
          this.place,
          "HEAD",
          headSource(index, changes.raw, changes.before, () => treeSource(this.place, head, changes.before)),
        )
      : emptySnapshot();
    // At the toplevel the diff was of the whole index: its raw entries name the staged change.
    if (this.prefix === "") this.stagedRaw ??= Promise.resolve(changes.raw);
    return unit("staged", "staged", null, [], before, after, changes);
  }

  private stagedRaw: Promise<RawEntry[]> | null = null;

  private rawStaged(): Promise<RawEntry[]> {
    this.stagedRaw ??= this.handoff ? Promise.resolve(this.handoff.diff.raw) : readRaw(this.root, ["--cached"]);
    return this.stagedRaw;
  }

  async stagedKey(): Promise<string> {
    const [head, raw] = await Promise.all([this.headSha(), this.rawStaged()]);
    return stagedKey(head, raw);
  }

  async unmergedPaths(): Promise<string[]> {
    return (await this.rawStaged()).filter((e) => e.status === "U").map((e) => e.path);
  }

  async indexChecksum(): Promise<string | null> {
    return indexChecksum(await this.gitPath("index"));
  }

  private async commitUnit(info: CommitInfo): Promise<DeployUnit> {
    const parent = await this.firstParent(info);
    const changes = await this.changes([parent ?? this.emptyTree, info.sha]);
    const before = parent ? this.treeSnapshot(parent, parent, changes.before) : emptySnapshot();
    return unit("commit", info.sha, info, [info], before, this.treeSnapshot(info.sha, info.sha, changes.after), changes);
  }

  private treeSnapshot(sha: string, label: string, known?: Known): ListedSnapshot {
    return gitSnapshot(this.place, label, treeSource(this.place, sha, known));
  }

  /** The first parent, null for a true root; GateError when a shallow clone cut it off. */
  private async firstParent(info: CommitInfo): Promise<string | null> {
    if (info.parents[0]) return info.parents[0];
    if (this.shallow && (await this.shallowBoundary()).has(info.sha)) {
      throw new GateError(`the parent of commit ${info.sha.slice(0, 12)} is missing`, { hint: SHALLOW_HINT });
    }
    return null;
  }

  private async rangeUnits(range: string, per: "commit" | "range"): Promise<DeployUnit[]> {
    const { base, tip } = await this.resolveRange(range);
    if (per === "range") {
      const commits = await this.commitsBetween(base, tip, range);
      const changes = await this.changes([base, tip]);
      const before = this.treeSnapshot(base, base, changes.before);
      return [unit("range", range, null, commits, before, this.treeSnapshot(tip, tip, changes.after), changes)];
    }
    const units: DeployUnit[] = [];
    for await (const u of this.streamUnits(base, tip, range)) units.push(u);
    return units;
  }

  async *unitsInRange(range: string): AsyncGenerator<DeployUnit> {
    const { base, tip } = await this.resolveRange(range);
    yield* this.streamUnits(base, tip, range);
  }

  async *addedLinesInRange(range: string, shard?: Shard, sieve?: LineSieve): AsyncGenerator<RangeCommit> {
    const revs = await this.historyRevs(range);
    if (this.shallow) await this.commitsOf(revs, range);
    if (!shard || shard.count === 1) {
      yield* this.rangeReader().addedLines(revs, sieve);
      return;
    }
    // A shard is one contiguous block of the range, oldest first: each CI job's git log prints only its
    // own commits' patches, so N jobs split git's work as well as kvgate's.
    const all = (await this.git.run(["rev-list", "--reverse", ...revs])).split("\n").filter((l) => l !== "");
    const block = shardBlock(all, shard);
    if (block.length === 0) return;
    // --no-walk=unsorted prints exactly these commits in the order given; the log's --reverse flips it.
    yield* this.rangeReader().addedLines(["--no-walk=unsorted", ...block.reverse()], sieve);
  }

  private async *streamUnits(base: string, tip: string, range: string): AsyncGenerator<DeployUnit> {
    // A shallow clone's edge commits print as roots: the listing of commits is checked first.
    if (this.shallow) await this.commitsBetween(base, tip, range);
    yield* this.rangeReader().units([`${base}..${tip}`]);
  }

  private rangeReader(): RangeReader {
    this.ranges ??= new RangeReader(this.place, this.emptyTree);
    return this.ranges;
  }

  private async resolveRange(range: string): Promise<{ base: string; tip: string }> {
    const m = /^(.*?)(\.\.\.?)(.*)$/.exec(range);
    if (!m || range.trim() === "" || (m[1] === "" && m[3] === "")) {
      throw new GateError(`bad range: ${JSON.stringify(range)}`, { hint: "write it as A..B or A...B (the merge base of A and B to B)" });
    }
    const [a, b] = await Promise.all([this.revParse(m[1] || "HEAD", range), this.revParse(m[3] || "HEAD", range)]);
    if (m[2] === "..") return { base: a, tip: b };
    const base = await this.mergeBase(a, b);
    if (base) return { base, tip: b };
    if (this.shallow) {
      throw new GateError(`no merge base of ${m[1]} and ${m[3]} in this clone (range ${range})`, { hint: SHALLOW_HINT });
    }
    throw new GateError(`${m[1]} and ${m[3]} have no common ancestor (range ${range})`, { hint: "use A..B to compare them directly" });
  }

  /**
   * The revisions an audit reads: `A..B` (or `A...B`) as for check, or one revision alone (`HEAD`):
   * every commit it reaches, the root commit included, which no `A..B` can name (docs/secrets.md#audit).
   */
  private async historyRevs(range: string): Promise<string[]> {
    if (!range.includes("..")) return [await this.revParse(range, range)];
    const { base, tip } = await this.resolveRange(range);
    return [`${base}..${tip}`];
  }

  private async commitsBetween(base: string, tip: string, range: string): Promise<CommitInfo[]> {
    return this.commitsOf([`${base}..${tip}`], range);
  }

  private async commitsOf(revs: readonly string[], range: string): Promise<CommitInfo[]> {
    const commits = await readCommits(this.git, ["--reverse", ...revs]);
    if (this.shallow) {
      // The walk hit the clone's edge before reaching the base: the history in between is missing.
      const edge = await this.shallowBoundary();
      const cut = commits.find((c) => edge.has(c.sha));
      if (cut) {
        throw new GateError(`the history between ${range} is incomplete: commit ${cut.sha.slice(0, 12)}'s parent is missing`, {
          hint: SHALLOW_HINT,
        });
      }
    }
    return commits;
  }

  async commitsInRange(range: string): Promise<CommitInfo[]> {
    return this.commitsOf(await this.historyRevs(range), range);
  }

  private async commitInfo(sha: string): Promise<CommitInfo> {
    const [info] = await readCommits(this.git, ["--no-walk=unsorted", sha]);
    if (!info) throw new GateError(`cannot read commit ${sha}`);
    return info;
  }

  private shallowBoundary(): Promise<Set<string>> {
    this.shallowSet ??= this.gitPath("shallow").then(async (p) => {
      const text = await readFile(p, "utf8").catch(() => "");
      return new Set(
        text
          .split("\n")
          .map((l) => l.trim())
          .filter(Boolean),
      );
    });
    return this.shallowSet;
  }

  async snapshot(name: string): Promise<Snapshot> {
    if (name === "index") return gitSnapshot(this.place, "index", indexSource(this.place));
    if (name === "worktree") return worktreeSnapshot(this.place);
    if (name === "empty") return emptySnapshot();
    const sha = await this.revParse(name);
    return this.treeSnapshot(sha, name === "HEAD" ? "HEAD" : sha);
  }

  /** Seeds headSha() from openRepo's probe. */
  knowHead(sha: string | null): void {
    this.head = Promise.resolve(sha);
  }

  headSha(): Promise<string | null> {
    this.head ??= this.git.tryRun(["rev-parse", "--verify", "-q", "HEAD^{commit}"]).then((o) => o?.trim() || null);
    return this.head;
  }

  async revParse(rev: string, context?: string): Promise<string> {
    const where = context ? ` (in ${context})` : "";
    if (rev.startsWith("-")) throw new GateError(`bad revision ${JSON.stringify(rev)}${where}`);
    const out = await this.git.tryRun(["rev-parse", "--verify", "-q", `${rev}^{commit}`]);
    const sha = out?.trim();
    if (sha) return sha;
    if (this.shallow) {
      throw new GateError(`commit ${rev}${where} is not in this clone`, { hint: SHALLOW_HINT });
    }
    throw new GateError(`unknown revision ${JSON.stringify(rev)}${where}: not a commit in ${this.root}`, {
      hint: "name a branch, tag or commit sha that exists here (git log --oneline shows them)",
    });
  }

  async mergeBase(a: string, b: string): Promise<string | null> {
    const out = await this.git.tryRun(["merge-base", a, b]);
    return out?.trim() || null;
  }

  async isShallow(): Promise<boolean> {
    return this.shallow;
  }

  /** `git write-tree` of the index, on a private copy of it (src/git/index-tree.ts). */
  async writeTree(): Promise<string> {
    const own = async (): Promise<string> => writeTreeOf(this.root, await this.gitPath("index"));
    return own();
  }

  private readonly gitPaths = new Map<string, string>();

  knowGitPath(name: string, path: string): void {
    this.gitPaths.set(name, path);
  }

  async gitPath(name: string): Promise<string> {
    const known = this.gitPaths.get(name);
    if (known !== undefined) return known;
    const path = resolve(this.root, (await this.git.run(["rev-parse", "--git-path", name])).trim());
    this.gitPaths.set(name, path);
    return path;
  }

  async configValue(key: string): Promise<string | null> {
    const v = await this.git.tryRun(["config", "--get", key]);
    return v === null || v.trim() === "" ? null : v.replace(/\n$/, "");
  }

  async readConfigAt(rev: string, path: string): Promise<string | null> {
    const sha = await this.revParse(rev);
    const blob = (await this.treeSnapshot(sha, sha).read([path])).get(path);
    return blob ? blob.toString("utf8") : null;
  }
}

function unit(
  kind: DeployUnit["kind"],
  id: string,
  commit: CommitInfo | null,
  commits: CommitInfo[],
  before: Snapshot | null,
  after: Snapshot,
  changes: Changes,
): DeployUnit {
  return { kind, id, commit, commits, before, after, files: changes.files, notices: changes.notices };
}
