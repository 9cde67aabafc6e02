// The one diff reader: `git diff` (the staged change, a commit against its parent, a range as one)
// and `git log` (every commit of a range, from ONE process) both print `--raw -p -z` output, and
// both are parsed here as they stream: per diff its raw entries (modes, blob ids, renames) and its
// patch text (added lines, binary markers). A log's root commits diff against the empty tree
// (--root), merges against their first parent.
//
// Layout with -z: (log only: SENTINEL sha \0 parents \0 author \0 message \0, then \0, then \n when
// the commit changes anything) the raw records (\0-separated), an empty record, and the patch.
// A commit boundary is looked for only at a line start outside a hunk (hunk bodies are counted by
// their headers), so no file content, however crafted, can fake one.
import { GateError } from "../errors.js";
import type { CommitInfo } from "./types.js";
import { commitFromFields } from "./commits.js";
import { hasTwoPaths, rawMeta, type RawEntry } from "./raw.js";
import { corruptObject } from "./blobs.js";
import { firstLine, runGit, streamGit } from "./exec.js";
import { SPILL_BYTES, SPILL_MARK, SpillWriter } from "./spill.js";
import { LightPatch, type LightFile } from "./light-patch.js";
import type { LineSieve } from "./types.js";

export interface DiffRecord {
  /** Toplevel-relative paths, as git printed them. */
  raw: RawEntry[];
  /** The `-U0` patch, for parsePatch. */
  patch: string;
  /**
   * Set by readDiff: blobs larger than this many bytes were not diffed (git calls such a file binary
   * without reading it), so a binary section may stand for a big text file (./bigfiles.ts settles it).
   */
  undiffedAbove?: number;
  /** Big added files streamed from their blob (./bigfiles.ts): toplevel path → file holding the blob. */
  blobFiles?: ReadonlyMap<string, string>;
  /** Big files whose contents are not read (./bigfiles.ts): their added lines come from the patch. */
  heldOut?: ReadonlySet<string>;
}

export interface LogCommit extends DiffRecord {
  info: CommitInfo;
  /**
   * Read with a sieve (streamLog's `sieve`): the files of the patch with only the lines it kept, and
   * `patch` is empty (./light-patch.ts).
   */
  files?: Map<string, LightFile>;
}

const SENTINEL = Buffer.from("\x01kvgate-commit\x02");
const FORMAT = "--format=%x01kvgate-commit%x02%H%x00%P%x00%an <%ae>%x00%B%x00";

/** What every diff prints: raw records and a zero-context patch, in a shape no user config changes. */
const DIFF_ARGS = [
  "--raw",
  "-p",
  "-z",
  "--no-abbrev",
  "-U0",
  "--inter-hunk-context=0",
  "--no-color",
  "--submodule=short",
  "--src-prefix=a/",
  "--dst-prefix=b/",
  "-M",
  "--no-relative",
  "--no-ext-diff",
  "--no-textconv",
  "--ignore-submodules=none",
];

/** A log adds what it needs to print every commit's diff, oldest first. */
export const LOG_ARGS = [
  "log",
  "--reverse",
  "--encoding=UTF-8",
  "--no-show-signature",
  FORMAT,
  "--root",
  "--diff-merges=first-parent",
  ...DIFF_ARGS,
];

const LOG_HINT = "run the same range with `git log --raw -p` to see git's own error; kvgate needs git 2.31 or newer";
const DIFF_HINT = "run `git diff --raw -p` on the same revisions to see git's own error";

/** git's words for an object it could not read (`unable to read <oid>`, `loose object <oid> ... is corrupt`). */
const UNREADABLE = /\b(unable to read|unable to unpack|is corrupt|bad object|inflate|missing blob)\b/;

/** An unreadable object whose path the diff did not name yet (a folder's tree): found after the fact. */
class UnplacedObject extends GateError {
  constructor(
    readonly oid: string,
    readonly stderr: string,
  ) {
    super(corruptObject(oid, undefined, stderr).message, { hint: corruptObject(oid, undefined, stderr).hint, cause: stderr });
  }
}

function failure(cmd: "log" | "diff", parser: DiffParser, stderr: string, code: number): GateError {
  const oid = UNREADABLE.test(stderr) ? /\b([0-9a-f]{40}|[0-9a-f]{64})\b/.exec(stderr)?.[1] : undefined;
  if (oid !== undefined) {
    const path = parser.pathOf(oid);
    return path === undefined ? new UnplacedObject(oid, stderr) : corruptObject(oid, path, stderr);
  }
  const hint = cmd === "log" ? LOG_HINT : DIFF_HINT;
  return new GateError(`git ${cmd} failed: ${firstLine(stderr) || `exit code ${code}`}`, { hint, cause: stderr });
}

/**
 * Streams `git log` of `revs` (e.g. `base..tip`), one LogCommit per commit, oldest first. With a
 * sieve (the secret scan's, for an audit), each commit's patch is read in place into its files'
 * kept lines (LogCommit.files), not held as text.
 */
export async function* streamLog(cwd: string, revs: string[], sieve?: LineSieve): AsyncGenerator<LogCommit> {
  const parser = new DiffParser("log", sieve);
  const args = [...LOG_ARGS, ...revs, "--"];
  try {
    for await (const chunk of streamGit(cwd, args, (stderr, code) => failure("log", parser, stderr, code)))
      yield* parser.feed(chunk) as LogCommit[];
  } catch (e) {
    throw await placed(cwd, e, revs);
  }
  yield* parser.end() as LogCommit[];
}

/** Commits a missing folder is looked for in: the revisions named and (for a range) those between. */
const PLACE_COMMITS = 200;

/**
 * A missing object git names without a file (a folder's tree) is looked up in the trees of the
 * revisions, so the error says which folder (a tree lists a broken sub-folder's entry before git
 * fails on entering it). Best effort: the error stands, with the fix, when it is not found.
 */
async function placed(cwd: string, e: unknown, revs: readonly string[]): Promise<unknown> {
  if (!(e instanceof UnplacedObject)) return e;
  const listed = await runGit(cwd, [
    "rev-list",
    `--max-count=${PLACE_COMMITS}`,
    ...revs.filter((r) => !r.startsWith("--") || r === "--cached").map((r) => (r === "--cached" ? "HEAD" : r)),
    "--",
  ]);
  const commits = [
    ...new Set([
      ...revs.flatMap((r) => (r === "--cached" ? ["HEAD"] : r.startsWith("-") ? [] : r.split(/\.\.\.?/))),
      ...listed.stdout.toString("utf8").split("\n"),
    ]),
  ].filter((r) => r !== "");
  for (const rev of commits) {
    const tree = await runGit(cwd, ["ls-tree", "-r", "-t", "-z", "--full-tree", rev]);
    for (const rec of tree.stdout.toString("utf8").split("\0")) {
      const tab = rec.indexOf("\t");
      const [, type, oid] = rec.slice(0, tab).split(" ");
      if (oid === e.oid)
        return corruptObject(e.oid, `${type === "tree" ? "the folder " : ""}${rec.slice(tab + 1)}${type === "tree" ? "/" : ""}`, e.stderr);
    }
  }
  return e;
}

/**
 * Blobs above this size are not diffed by git (core.bigFileThreshold): its diff of a 50 MB file holds
 * both sides and its work in memory (150 MiB), where the blob streamed from cat-file costs nothing.
 * The same size as a spilled patch: a smaller file's patch is held, a bigger one's is streamed anyway.
 */
export const UNDIFFED_ABOVE = SPILL_BYTES;

/**
 * One `git diff` (e.g. `["--cached"]`, or `[before, after]`), limited by `paths` (pathspecs), in
 * ONE process: the same records a log prints per commit. Blobs above UNDIFFED_ABOVE read as binary
 * (the record says so) unless `opts.wholeBlobs` asks git to diff every file whatever its size.
 */
export async function readDiff(
  cwd: string,
  what: string[],
  paths: string[] = [],
  opts: { wholeBlobs?: boolean } = {},
): Promise<DiffRecord> {
  const parser = new DiffParser("diff");
  const got: DiffRecord[] = [];
  // A racily clean index entry (staged within the index's own timestamp) makes git re-hash the work
  // tree file; above the threshold it does so through its streaming object writer, which deflates
  // at pack.compression although this diff writes no object: 1.5 s for 50 MB at git's default
  // level, 0.2 s at level 0 (a copy).
  const big = opts.wholeBlobs ? [] : ["-c", `core.bigFileThreshold=${UNDIFFED_ABOVE}`, "-c", "pack.compression=0"];
  const args = [...big, "diff", ...DIFF_ARGS, ...what, "--", ...paths];
  try {
    for await (const chunk of streamGit(cwd, args, (stderr, code) => failure("diff", parser, stderr, code)))
      got.push(...parser.feed(chunk));
  } catch (e) {
    throw await placed(cwd, e, what);
  }
  got.push(...parser.end());
  const diff = got[0] ?? { raw: [], patch: "" };
  return opts.wholeBlobs ? diff : { ...diff, undiffedAbove: UNDIFFED_ABOVE };
}

/**
 * The raw entries alone of `git diff` (e.g. `["--cached"]`), whole (no pathspec): what a staged
 * key is made of (./staged-key.ts), the same entries readDiff prints, without a patch.
 */
export async function readRaw(cwd: string, what: string[]): Promise<RawEntry[]> {
  const parser = new DiffParser("diff");
  const raw = DIFF_ARGS.filter((a) => a !== "-p" && a !== "-U0" && a !== "--inter-hunk-context=0");
  const got: DiffRecord[] = [];
  for await (const chunk of streamGit(cwd, ["diff", ...raw, ...what, "--"], (stderr, code) => failure("diff", parser, stderr, code)))
    got.push(...parser.feed(chunk));
  got.push(...parser.end());
  return got[0]?.raw ?? [];
}

type State = "header" | "raw" | "patch";
interface Current {
  info: CommitInfo | null;
  raw: RawEntry[];
  patch: Buffer[];
}

/** Push parser: feed it chunks, it returns the diffs (log: commits) completed so far. */
export class DiffParser {
  private buf: Buffer = Buffer.alloc(0);
  private state: State;
  private current: Current | null;
  /** The raw entries of the last diff handed out (a failure may name one of its objects). */
  private lastRaw: RawEntry[] = [];
  /** Lines still owed by the hunk being read (old side, new side). */
  private oldLeft = 0;
  private newLeft = 0;
  private pendingMeta: string | null = null;
  private pendingFirst: string | null = null;
  /** The byte the parser stopped short of (a NUL or a newline); null when it needs just more bytes. */
  private waitFor: number | null = null;
  private parked: Buffer[] = [];
  /** Where the current file's hunks start in the patch (-1: no hunk yet), and their bytes so far. */
  private hunksAt = -1;
  private hunkBytes = 0;
  /** The current file's hunks go to disk once they pass SPILL_BYTES (./spill.ts). */
  private spill: SpillWriter | null = null;
  private spillFailed = false;
  /** The first after-side line of the hunk header just read (null: the line was not one). */
  private hunkStart: number | null = null;
  /** With a sieve: the commit's patch read in place (./light-patch.ts). */
  private light: LightPatch | null = null;
  /** The sieve's hits in the buffer being read (positions, grades), and the next one not yet passed. */
  private readonly hitAt: number[] = [];
  private readonly hitGrade: number[] = [];
  private hitNext = 0;
  /** Where the last sweep of added lines ended. */
  private sweptTo = 0;
  /** The first NUL at or after the line being read (b.length: none; -1: not looked for yet). */
  private nulAt = -1;

  /** `log`: commits with headers; `diff`: one headerless diff. A sieve reads a log's patches in place. */
  constructor(
    private readonly kind: "log" | "diff" = "log",
    private readonly sieve?: LineSieve,
  ) {
    this.state = kind === "log" ? "header" : "raw";
    this.current = kind === "log" ? null : { info: null, raw: [], patch: [] };
  }

  feed(chunk: Buffer): (DiffRecord | LogCommit)[] {
    // Waiting for the end of a long line (a 50 MB one-line file): chunks are kept aside and joined
    // once it comes, not copied again with every chunk.
    if (this.waitFor !== null && !chunk.includes(this.waitFor)) {
      this.parked.push(chunk);
      return [];
    }
    const out: (DiffRecord | LogCommit)[] = [];
    // The piece left over from the last chunk (most often a line cut by the pipe) is finished with a
    // copy of the new chunk's head alone, up to the byte it waits for; the rest of the chunk is then
    // read where it lies. (git writes a pipe 4 KiB at a time: copying every chunk behind its leftover
    // copied the whole log once more.) When the head is not enough, the two are joined as before.
    const waitFor = this.waitFor;
    const cut = waitFor !== null && this.buf.length > 0 && this.parked.length === 0 ? chunk.indexOf(waitFor) : -1;
    if (cut >= 0 && cut + 1 < chunk.length) {
      const head = Buffer.concat([this.buf, chunk.subarray(0, cut + 1)]);
      this.buf = head;
      const used = this.run(out, false);
      if (used === head.length) {
        this.buf = chunk.subarray(cut + 1);
        this.buf = this.buf.subarray(this.run(out, false));
        return out;
      }
      this.buf = head.subarray(used);
      chunk = chunk.subarray(cut + 1);
    }
    this.unpark(chunk);
    const used = this.run(out, false);
    this.buf = this.buf.subarray(used);
    return out;
  }

  end(): (DiffRecord | LogCommit)[] {
    this.unpark(Buffer.alloc(0));
    const out: (DiffRecord | LogCommit)[] = [];
    const used = this.run(out, true);
    if (used < this.buf.length && this.buf.subarray(used).some((b) => b !== 0 && b !== 0x0a)) {
      throw new GateError(`git ${this.kind}: truncated output`, { hint: this.hint });
    }
    this.buf = Buffer.alloc(0);
    this.finish(out);
    return out;
  }

  private unpark(chunk: Buffer): void {
    const parts = [this.buf, ...this.parked.splice(0), chunk].filter((p) => p.length > 0);
    this.buf = parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts);
  }

  /** The toplevel path an object id belongs to in the diff being read (or the last one read). */
  pathOf(oid: string): string | undefined {
    for (const raw of [this.current?.raw ?? [], this.lastRaw]) {
      const e = raw.find((r) => r.newOid === oid || r.oldOid === oid);
      if (e) return e.newOid === oid ? e.path : e.oldPath;
    }
    return undefined;
  }

  private get hint(): string {
    return this.kind === "log" ? LOG_HINT : DIFF_HINT;
  }

  private atCommit(b: Buffer, pos: number): boolean {
    return this.kind === "log" && startsWith(b, pos, SENTINEL);
  }

  /** Consumes what it can; returns how many bytes of buf it used. */
  private run(out: (DiffRecord | LogCommit)[], eof: boolean): number {
    const b = this.buf;
    let pos = 0;
    this.waitFor = null;
    if (this.sieve) this.newBuffer();
    for (;;) {
      if (this.state === "header") {
        while (pos < b.length && (b[pos] === 0 || b[pos] === 0x0a)) pos++; // separators
        if (pos >= b.length) return pos;
        if (b.length - pos < SENTINEL.length && !eof) return pos;
        if (!startsWith(b, pos, SENTINEL)) throw new GateError("git log: unexpected output (no commit header)", { hint: LOG_HINT });
        let at = pos + SENTINEL.length;
        const fields: string[] = [];
        for (let k = 0; k < 4; k++) {
          const nul = b.indexOf(0, at);
          if (nul < 0) {
            if (eof) throw new GateError("git log: truncated commit header", { hint: LOG_HINT });
            this.waitFor = 0;
            return pos;
          }
          fields.push(b.toString("utf8", at, nul));
          at = nul + 1;
        }
        // After the header: \0, then \n when a diff follows.
        if (b.length - at < 2 && !eof) return pos;
        const [sha = "", parents = "", author = "", message = ""] = fields;
        if (!/^[0-9a-f]{40,64}$/.test(sha))
          throw new GateError(`git log: unexpected commit id ${JSON.stringify(sha.slice(0, 80))}`, { hint: LOG_HINT });
        this.finish(out);
        this.current = { info: commitFromFields(sha, parents, author, message), raw: [], patch: [] };
        if (this.sieve) this.light = new LightPatch(this.sieve);
        if (b[at] === 0) at++;
        if (b[at] === 0x0a) {
          at++;
          this.state = "raw";
        }
        pos = at;
        continue;
      }
      if (this.state === "raw") {
        if (this.pendingMeta === null && b.length - pos >= SENTINEL.length && this.atCommit(b, pos)) {
          this.state = "header";
          continue;
        }
        const nul = b.indexOf(0, pos);
        if (nul < 0) {
          if (eof && pos < b.length) throw new GateError(`git ${this.kind}: truncated raw diff`, { hint: this.hint });
          this.waitFor = 0;
          return pos;
        }
        const token = b.toString("utf8", pos, nul);
        pos = nul + 1;
        this.rawToken(token);
        continue;
      }
      // patch
      if (this.oldLeft === 0 && this.newLeft === 0 && this.kind === "log") {
        if (b.length - pos < SENTINEL.length && !eof) return pos;
        if (this.atCommit(b, pos)) {
          this.state = "header";
          continue;
        }
      }
      if (pos >= b.length) return pos;
      let eol = b.indexOf(0x0a, pos);
      if (eol < 0) {
        if (!eof) {
          this.waitFor = 0x0a;
          return pos;
        }
        eol = b.length;
      }
      if (this.sieve) this.lightLine(b, pos, eol);
      else this.patchLine(b.subarray(pos, Math.min(eol + 1, b.length)));
      pos = eol + 1;
    }
  }

  private rawToken(token: string): void {
    const cur = this.current;
    if (!cur) throw new GateError("git log: raw diff outside a commit", { hint: this.hint });
    if (this.pendingMeta === null) {
      if (token === "") {
        this.state = "patch";
        this.oldLeft = this.newLeft = 0;
        return;
      }
      if (!token.startsWith(":"))
        throw new GateError(`git ${this.kind}: unexpected raw record ${JSON.stringify(token.slice(0, 80))}`, { hint: this.hint });
      this.pendingMeta = token;
      return;
    }
    const meta = rawMeta(this.pendingMeta);
    if (!meta)
      throw new GateError(`git ${this.kind}: unexpected raw record ${JSON.stringify(this.pendingMeta.slice(0, 80))}`, { hint: this.hint });
    if (hasTwoPaths(meta.status) && this.pendingFirst === null) {
      this.pendingFirst = token;
      return;
    }
    const { oldMode, newMode, oldOid, newOid, status } = meta;
    cur.raw.push({ oldMode, newMode, oldOid, newOid, status, oldPath: this.pendingFirst ?? token, path: token });
    this.pendingMeta = null;
    this.pendingFirst = null;
  }

  /** A new buffer is read: the hits and the NUL found in the last one are of no use. */
  private newBuffer(): void {
    this.hitAt.length = 0;
    this.hitGrade.length = 0;
    this.hitNext = 0;
    this.sweptTo = 0;
    this.nulAt = -1;
  }

  /**
   * One sweep of the sieve over the run of added lines starting at `start` (the rest of the hunk's
   * added lines, as far as the buffer holds them whole): only added lines are looked at, each once.
   */
  private sweepAdded(b: Buffer, start: number, eol: number): void {
    let end = eol;
    // -U0 with no inter-hunk context: the hunk's new side is this line and the `newLeft` after it.
    for (let k = 0; k < this.newLeft; k++) {
      const next = b.indexOf(0x0a, end + 1);
      if (next < 0 || b[end + 1] !== 0x2b) break;
      end = next;
    }
    this.hitAt.length = 0;
    this.hitGrade.length = 0;
    this.hitNext = 0;
    this.sieve?.sweep(b, start, end, (at, grade) => {
      this.hitAt.push(at);
      this.hitGrade.push(grade);
    });
    this.sweptTo = end;
  }

  /** A patch line read in place: counted, and kept by the light patch when the sieve marked it. */
  private lightLine(b: Buffer, start: number, eol: number): void {
    const end = Math.min(eol, b.length);
    const inHunk = this.oldLeft > 0 || this.newLeft > 0;
    this.countAt(b, start, end);
    let grade = 0;
    if (inHunk && b[start] === 0x2b) {
      if (start >= this.sweptTo) this.sweepAdded(b, start, end);
      while (this.hitNext < this.hitAt.length && (this.hitAt[this.hitNext] as number) < start) this.hitNext++;
      while (this.hitNext < this.hitAt.length && (this.hitAt[this.hitNext] as number) < end) {
        grade = Math.max(grade, this.hitGrade[this.hitNext++] as number);
      }
    }
    // A NUL in an added line makes the file binary (a text diff forced on it): one search per buffer
    // finds the next one (b.length: none left), not one per line.
    if (this.nulAt < start) {
      const at = b.indexOf(0, start);
      this.nulAt = at < 0 ? b.length : at;
    }
    const nul = this.nulAt < end;
    this.light?.line(b, start, end, grade, nul, inHunk ? null : this.hunkStart);
  }

  private patchLine(line: Buffer): void {
    const inHunk = this.oldLeft > 0 || this.newLeft > 0;
    this.count(line);
    if (!inHunk && startsWithText(line, "diff --git ")) {
      this.closeSpill();
      this.hunksAt = -1;
      this.hunkBytes = 0;
    } else if (this.spill) {
      this.spill.write(line);
      return;
    }
    const patch = this.current?.patch;
    if (!patch) return;
    patch.push(line);
    if (this.hunksAt < 0 && line[0] === 0x40 && line[1] === 0x40) this.hunksAt = patch.length - 1;
    if (this.hunksAt < 0) return;
    this.hunkBytes += line.length;
    if (this.hunkBytes > SPILL_BYTES && !this.spillFailed) {
      // This file's patch is big: its hunks so far and to come go to disk, and the patch keeps a mark.
      // No temp folder to write to: the patch stays in memory (slower, still scanned whole).
      let spill: SpillWriter;
      try {
        spill = new SpillWriter();
      } catch {
        this.spillFailed = true;
        return;
      }
      for (const l of patch.splice(this.hunksAt)) spill.write(l);
      patch.push(Buffer.from(`${SPILL_MARK}${spill.path}\n`));
      this.spill = spill;
    }
  }

  private closeSpill(): void {
    this.spill?.close();
    this.spill = null;
  }

  /** Keeps the hunk counters: lines still owed by the hunk being read. */
  private count(line: Buffer): void {
    this.countAt(line, 0, line.length);
  }

  private countAt(line: Buffer, start: number, end: number): void {
    const first = line[start];
    this.hunkStart = null;
    if (this.oldLeft > 0 || this.newLeft > 0) {
      if (first === 0x2b)
        this.newLeft--; // +
      else if (first === 0x2d)
        this.oldLeft--; // -
      else if (first === 0x20) {
        this.oldLeft--;
        this.newLeft--;
      }
      // `\ No newline at end of file` owes nothing.
      return;
    }
    if (first === 0x40 && line[start + 1] === 0x40) {
      const m = /^@@ -\d+(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line.toString("latin1", start, Math.min(end, start + 200)));
      if (m) {
        this.oldLeft = m[1] === undefined ? 1 : Number(m[1]);
        this.newLeft = m[3] === undefined ? 1 : Number(m[3]);
        this.hunkStart = Number(m[2]);
      }
    }
  }

  private finish(out: (DiffRecord | LogCommit)[]): void {
    const cur = this.current;
    if (!cur) return;
    if (this.pendingMeta !== null) throw new GateError(`git ${this.kind}: truncated raw diff`, { hint: this.hint });
    this.closeSpill();
    this.hunksAt = -1;
    this.hunkBytes = 0;
    if (this.light && cur.info) {
      out.push({ info: cur.info, raw: cur.raw, patch: "", files: this.light.end() });
      this.light = null;
    } else {
      const patch = Buffer.concat(cur.patch).toString("utf8");
      out.push(cur.info ? { info: cur.info, raw: cur.raw, patch } : { raw: cur.raw, patch });
    }
    this.lastRaw = cur.raw;
    this.current = null;
    this.state = "header";
    this.oldLeft = this.newLeft = 0;
  }
}

function startsWithText(b: Buffer, s: string): boolean {
  if (b.length < s.length) return false;
  for (let i = 0; i < s.length; i++) if (b[i] !== s.charCodeAt(i)) return false;
  return true;
}

function startsWith(b: Buffer, pos: number, s: Buffer): boolean {
  if (b.length - pos < s.length) return false;
  for (let i = 0; i < s.length; i++) if (b[pos + i] !== s[i]) return false;
  return true;
}
