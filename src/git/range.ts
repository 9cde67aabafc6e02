// Per-commit units of a range from ONE streaming `git log` and the repository's one blob reader,
// with each commit's listing derived from its first parent's (no `ls-tree` per commit). The same
// DeployUnits as one commit unit per commit; see test/git/range.e2e.test.ts, which compares the two.
import type { ChangedFile, ChangeNotice, CommitInfo, DeployUnit } from "./types.js";
import type { RawEntry } from "./raw.js";
import { fullChanges, lightChanges, relativeTo, type Changes } from "./changes.js";
import { streamLog, type LogCommit } from "./diffstream.js";
import { readSettledDiff } from "./bigfiles.js";
import { globFilter } from "./globs.js";
import { applyRaw, EMPTY_LISTING, listingFromEntries, lookup, type Listing } from "./listing.js";
import { emptySnapshot, filesByOid, pathspecs, treeEntries, type ListedSnapshot, type RepoPlace } from "./snapshots.js";

/** One commit of a range for secrets-only work: no contents, only what the scanner needs. */
export interface RangeCommit {
  commit: CommitInfo;
  /** `before`/`after` are null; path, oldPath, status, binary and addedLines are set; size for binary and streamed files. */
  files: ChangedFile[];
  notices: ChangeNotice[];
}

/** A tree state in a chain: a listing loaded by `ls-tree`, or the first parent's plus a raw diff. */
interface Node {
  sha: string;
  from: Node | null;
  /** Raw entries relative to the opened folder (those outside it dropped). */
  diff: RawEntry[];
  /** How a chain root is loaded (ls-tree, or the empty tree). */
  load: (() => Promise<Listing>) | null;
  /** Position in the stream (chain roots: 0), for checkpoints. */
  ordinal: number;
}

/** Commits in flight: the log keeps streaming while earlier units wait for their blobs. */
const WINDOW = 256;
/** Recent listings kept (the engine walks units in order, so the last few are all it asks again)... */
const LISTINGS_KEPT = 4;
/** ...plus every Nth commit's, so any access order re-derives at most N listings. */
const CHECKPOINT_EVERY = 64;

export class RangeReader {
  private readonly nodes = new Map<string, Node>();
  private readonly listings = new Map<string, Listing>();
  private readonly checkpoints = new Map<string, Listing>();
  private readonly loading = new Map<string, Promise<Listing>>();
  private readonly emptyNode: Node = { sha: "empty", from: null, diff: [], load: async () => EMPTY_LISTING, ordinal: 0 };
  private streamed = 0;

  constructor(
    private readonly place: RepoPlace,
    private readonly emptyTree: string,
  ) {}

  /** `revs` like `["base..tip"]`. */
  async *units(revs: string[]): AsyncGenerator<DeployUnit> {
    yield* windowed(streamLog(this.place.root, revs), (c) => this.unitOf(c));
  }

  async *addedLines(revs: string[]): AsyncGenerator<RangeCommit> {
    yield* windowed(streamLog(this.place.root, revs), (c) => this.lightOf(c));
  }

  private async unitOf(c: LogCommit): Promise<DeployUnit> {
    const { info } = c;
    const parent = info.parents[0] ?? null;
    const node = this.track(c);
    const changes = await this.changesOf(c, parent, fullChanges);
    const before = parent ? this.snapshot(this.nodeOf(parent), parent) : emptySnapshot();
    return {
      kind: "commit",
      id: info.sha,
      commit: info,
      commits: [info],
      before,
      after: this.snapshot(node, info.sha),
      files: changes.files,
      notices: changes.notices,
    };
  }

  private async lightOf(c: LogCommit): Promise<RangeCommit> {
    const changes = await this.changesOf(c, c.info.parents[0] ?? null, lightChanges);
    // A fallback diff read the contents; drop them (and a text file's size) so every commit looks alike.
    // (lightChanges' files hold none: they are passed on as they are, not copied.)
    const files = changes.files.map((f) =>
      f.before === null && f.after === null ? f : { ...f, before: null, after: null, size: f.after === null ? f.size : null },
    );
    return { commit: c.info, files, notices: changes.notices };
  }

  /**
   * A rename across the opened folder's edge reads as an add or a delete to a diff limited to the
   * folder, with every line added: only a diff with that pathspec says so, so such a commit gets one.
   */
  private async changesOf(c: LogCommit, parent: string | null, build: typeof fullChanges): Promise<Changes> {
    const { prefix, root, blobs } = this.place;
    const crosses = prefix !== "" && c.raw.some((e) => e.path.startsWith(prefix) !== e.oldPath.startsWith(prefix));
    if (!crosses) return build(prefix, blobs, { raw: this.inScope(c.raw), patch: c.patch });
    return fullChanges(prefix, blobs, await readSettledDiff(root, blobs, [parent ?? this.emptyTree, c.info.sha], pathspecs(this.place)));
  }

  private inScope(raw: RawEntry[]): RawEntry[] {
    const prefix = this.place.prefix;
    return prefix === "" ? raw : raw.filter((e) => e.path.startsWith(prefix) && e.oldPath.startsWith(prefix));
  }

  /** The listing change of a commit, relative to the folder: a rename across its edge is an add or a delete. */
  private listingDiff(raw: RawEntry[]): RawEntry[] {
    const prefix = this.place.prefix;
    if (prefix === "") return raw;
    const rel = relativeTo(prefix);
    const zero = "0".repeat(6);
    const out: RawEntry[] = [];
    for (const e of raw) {
      const inNew = e.path.startsWith(prefix);
      const inOld = e.oldPath.startsWith(prefix);
      if (inNew && inOld) out.push({ ...e, path: rel(e.path), oldPath: rel(e.oldPath) });
      else if (inNew) out.push({ ...e, status: "A", oldMode: zero, oldPath: rel(e.path), path: rel(e.path) });
      else if (inOld && e.status !== "C") out.push({ ...e, status: "D", newMode: zero, path: rel(e.oldPath), oldPath: rel(e.oldPath) });
    }
    return out;
  }

  private track(c: LogCommit): Node {
    const parent = c.info.parents[0] ?? null;
    const node: Node = {
      sha: c.info.sha,
      from: parent ? this.nodeOf(parent) : this.emptyNode,
      diff: this.listingDiff(c.raw),
      load: null,
      ordinal: ++this.streamed,
    };
    this.nodes.set(c.info.sha, node);
    return node;
  }

  /** A commit of the range already streamed, or a tree outside it (listed once, by ls-tree). */
  private nodeOf(sha: string): Node {
    let node = this.nodes.get(sha);
    if (!node) {
      node = { sha, from: null, diff: [], load: async () => listingFromEntries(await treeEntries(this.place, sha)), ordinal: 0 };
      this.nodes.set(sha, node);
    }
    return node;
  }

  private peek(node: Node): Listing | undefined {
    const l = this.listings.get(node.sha);
    if (l) {
      this.listings.delete(node.sha);
      this.listings.set(node.sha, l);
    }
    return l ?? this.checkpoints.get(node.sha);
  }

  private keep(node: Node, l: Listing): void {
    if (node.ordinal % CHECKPOINT_EVERY === 0) this.checkpoints.set(node.sha, l);
    this.listings.set(node.sha, l);
    for (const k of this.listings.keys()) {
      if (this.listings.size <= LISTINGS_KEPT) break;
      this.listings.delete(k);
    }
  }

  /** Walks back to a listing in memory (or a chain root), then applies the diffs forward. */
  async listing(node: Node): Promise<Listing> {
    const hit = this.peek(node);
    if (hit) return hit;
    const inFlight = this.loading.get(node.sha);
    if (inFlight) return inFlight;
    const work = (async () => {
      const chain: Node[] = [];
      let at: Node = node;
      let start: Listing | undefined;
      for (;;) {
        start = at === node ? undefined : this.peek(at);
        if (start) break;
        if (at !== node && this.loading.has(at.sha)) {
          start = await this.loading.get(at.sha);
          break;
        }
        if (!at.from) {
          start = await (at.load ?? (async () => EMPTY_LISTING))();
          this.keep(at, start);
          break;
        }
        chain.push(at);
        at = at.from;
      }
      let l = start as Listing;
      for (let i = chain.length - 1; i >= 0; i--) {
        const n = chain[i] as Node;
        l = applyRaw(l, n.diff);
        this.keep(n, l);
      }
      return l;
    })();
    this.loading.set(node.sha, work);
    try {
      return await work;
    } finally {
      this.loading.delete(node.sha);
    }
  }

  /** A commit's tree: its listing derived in memory, its blobs read by id. */
  snapshot(node: Node, label: string): ListedSnapshot {
    return {
      label,
      list: async (globs) => {
        const files = (await this.listing(node)).files;
        if (globs === undefined) return files.slice(); // a copy: the listing's own array is shared with the next commit's
        const filter = globFilter(globs);
        return files.filter(filter.matches);
      },
      read: async (paths) => {
        const l = await this.listing(node);
        const oids = new Map<string, string | null>();
        for (const p of paths) {
          const e = lookup(l, p);
          oids.set(p, e && e.mode.startsWith("100") ? e.oid : null);
        }
        const blobs = await this.place.blobs.contents(
          [...oids.values()].filter((o): o is string => o !== null),
          filesByOid(oids),
        );
        return new Map(paths.map((p) => [p, blobs.get(oids.get(p) ?? "") ?? null]));
      },
      notices: () => [],
    };
  }
}

/**
 * Maps each item as it streams and yields the results in order. The source keeps being read while
 * results wait (git log is not held up by cat-file answers), up to WINDOW results in flight.
 */
async function* windowed<T, U>(source: AsyncIterable<T>, map: (t: T) => Promise<U>): AsyncGenerator<U> {
  const queue: { p: Promise<U>; done: boolean }[] = [];
  for await (const item of source) {
    const slot = { p: map(item), done: false };
    // Awaited below; the handler also keeps an early failure from counting as "unhandled".
    slot.p.then(
      () => (slot.done = true),
      () => (slot.done = true),
    );
    queue.push(slot);
    while (queue.length > 0 && (queue[0]!.done || queue.length >= WINDOW)) yield await queue.shift()!.p;
  }
  while (queue.length > 0) yield await queue.shift()!.p;
}
