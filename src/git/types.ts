// The change model: what the rest of kvgate knows of git. Only src/git/ runs git (every process
// through src/git/exec.ts); everything else reads these plain types.

export type FileStatus = "added" | "modified" | "deleted" | "renamed" | "copied" | "typechange";

export interface AddedLine {
  /** 1-based line number in the after version. */
  line: number;
  text: string;
}

export interface ChangedFile {
  path: string;
  /** The path before a rename or copy; null otherwise. */
  oldPath: string | null;
  status: FileStatus;
  /** Content before/after as UTF-8 text (CRLF kept as is); null when absent or binary. */
  before: string | null;
  after: string | null;
  binary: boolean;
  /**
   * Size in bytes of the after blob (0 when deleted). null where nobody asked for it: the audit's
   * light view (lightChanges) looks it up only for binary and streamed files, the findings that show it.
   */
  size: number | null;
  /** Lines added by the change, numbered in the after version. */
  addedLines: AddedLine[];
  /**
   * A file too big to hold (its patch or its blob was spilled to disk): `addedLines` and the contents
   * are empty, and this reads the added lines a chunk at a time, each call from the start; with a
   * sieve, only the lines it keeps (and their tails).
   */
  streamedLines?: (sieve?: LineSieve) => Iterable<AddedLine>;
}

/**
 * Which lines a streamed reading hands out (the secret scan's prefilter, src/secrets/prefilter.ts), so
 * lines no scan would look at are never decoded.
 */
export interface LineSieve {
  /**
   * One sweep over the whole lines in `bytes[start, end)`: `hit(at, grade)` for each place a line may
   * matter, in order (at: an index into bytes); grade 2: a block may open there and run on into the
   * `tail` lines after that line, which are handed out too.
   */
  sweep(bytes: Buffer, start: number, end: number, hit: (at: number, grade: 1 | 2) => void): void;
  tail: number;
  /**
   * Lines handed out after any line with a hit: the scan reads a line joined to the line before when
   * that one opens a value this one holds (an XML element, a YAML block, `--api-key` then its value).
   */
  after: number;
}

export interface Trailer {
  key: string;
  value: string;
}

export interface CommitInfo {
  sha: string;
  parents: string[];
  subject: string;
  /** The whole message. */
  message: string;
  trailers: Trailer[];
  author: string;
}

/** A notice about something skipped (a symlink, a submodule, a binary or oversized file). */
export interface ChangeNotice {
  path: string;
  message: string;
}

/** One state of the tree: HEAD, the index, a commit, the working tree, or the empty tree. */
export interface Snapshot {
  /** `HEAD`, `index`, a commit sha, `worktree`, or `empty`. */
  label: string;
  /**
   * Every regular file's path (symlinks and submodules left out). Cached after the first call.
   * With `globs` (picomatch, `dot: true`, relative paths): only the files matching one of them, and
   * git is asked only for the folders the globs start with, so the cost follows what matches, not
   * the size of the repository.
   */
  list(globs?: readonly string[]): Promise<string[]>;
  /**
   * Read many files in one batch; a path missing from the snapshot maps to null. Needs no list() first.
   * With `limits` (the fleet loader's caps per kind of file): a file on disk the door refuses (a
   * symlink out of the repository, a device, FIFO or socket, a file over its cap) maps to null and is
   * told to `limits.refused`; without them, such a file is a GateError.
   */
  read(paths: string[], limits?: ReadLimits): Promise<Map<string, Buffer | null>>;
}

/** How a batch read is bounded: src/load/caps.ts makes them, src/git/door.ts applies them on disk. */
export interface ReadLimits {
  /** The cap of a path: its bytes and the kind of file it is read as (for the refusal). */
  capOf(path: string): { bytes: number; kind: string };
  /** A file the door would not read: why, in full (never its bytes), and the fix. */
  refused(path: string, why: { message: string; problem: string; hint: string }): void;
}

export type UnitKind = "staged" | "commit" | "range" | "all";

/** One deploy unit: the staged change, one commit, a whole range, or the whole tree. */
export interface DeployUnit {
  kind: UnitKind;
  /** `staged`, a commit sha, `A..B`, or `all`. */
  id: string;
  /** The commit the unit is (commit units), else null. */
  commit: CommitInfo | null;
  /** Every commit the unit spans (a range unit: all of them, oldest first). */
  commits: CommitInfo[];
  /** null for `--all` (nothing before). */
  before: Snapshot | null;
  after: Snapshot;
  /** What the change touched; none under `--all`, whose files are `tree`'s. */
  files: ChangedFile[];
  notices: ChangeNotice[];
  /**
   * Every file of the tree, read when asked, a chunk at a time: `--all`, and a change to the gate's
   * policy (kvgate.yaml, .kvgateignore), which is checked as the whole tree while keeping its before
   * side (docs/coverage.md#the-policy-change).
   */
  tree?: TreeFiles;
  /** The change edits the gate's policy: every finding is reported, not only the ones it introduces. */
  policyChange?: boolean;
}

/**
 * The files of a whole tree (`--all`), each as a file added whole. Read a chunk at a time, the
 * chunk's bytes and text dropped before the next is read, so checking a tree holds at most a chunk
 * of it (or its largest file), never the whole repository.
 */
export interface TreeFiles {
  /** Every regular file's path, in the order the chunks give them. */
  paths: readonly string[];
  /** The files in `paths` order, a chunk at a time (a path gone since the listing is left out). */
  chunks(): AsyncIterable<ChangedFile[]>;
  /** The files at these paths, read now (a path the tree does not have is left out). */
  read(paths: readonly string[]): Promise<ChangedFile[]>;
}

export type Selection =
  { mode: "staged" } | { mode: "commit"; rev: string } | { mode: "range"; range: string; unit: "commit" | "range" } | { mode: "all" };
