// The one blob reader: ONE long-lived `git cat-file --batch-command --buffer` process per opened
// repository, shared by the staged, commit and range units and every snapshot read, so a check of
// 5 or a range of 2,000 commits costs a single spawn. It holds the event loop only while answers
// are owed and exits after a short idle spell (a later request starts it again), so neither a CLI
// run nor a test worker is kept alive by it.
//
// Objects are asked for by id only (snapshots resolve paths through their listings first): cat-file
// answers "missing" alike for an absent path and for an object it cannot read, but an id always
// comes from a tree, the index or a diff, so "missing" for one means the repository is corrupt:
// never a file that is not there.
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { GateError } from "../errors.js";
import { meaningfulStderr, spawnFailure, startPipe } from "./exec.js";

const CORRUPT_HINT =
  "check the repository with `git fsck`; a missing object in a partial or shallow clone needs `git fetch --unshallow` or a full clone";

const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** A full object id; the all-zero id stands for "no object" and is not one. */
function isObjectId(name: string): boolean {
  return OBJECT_ID.test(name) && !/^0+$/.test(name);
}

/**
 * The GateError for an object that cannot be read: the object, the file it was wanted for (when
 * known) and the fix. `stderr` is git's word on it; the object id is taken from it when `oid` is not one.
 */
export function corruptObject(oid: string, path: string | undefined, stderr: string): GateError {
  const id = isObjectId(oid) ? oid : (/\b([0-9a-f]{40}|[0-9a-f]{64})\b/.exec(stderr)?.[1] ?? oid);
  const detail = stderr.trim().split("\n")[0];
  return new GateError(
    `the repository is corrupt: object ${id}${path === undefined ? "" : ` for ${path}`} cannot be read; run git fsck${detail ? ` (git: ${detail})` : ""}`,
    { hint: CORRUPT_HINT, cause: stderr || undefined },
  );
}

type Want = "contents" | "info";
interface Pending {
  want: Want;
  oid: string;
  /** The file the object is read for (messages only). */
  path: string | undefined;
  resolve(v: Buffer | number | null): void;
  reject(e: unknown): void;
}

const IDLE_MS = 300;
/** Blobs kept in memory: a range re-reads unchanged env files from here. */
const CACHE_BYTES = 64 * 1024 * 1024;

/** Blobs and sizes by object id. `paths` (id → file) only names the file when an object cannot be read. */
export class BlobReader {
  private child: ChildProcessWithoutNullStreams | null = null;
  private queue: Pending[] = [];
  /** `--batch-command` needs git >= 2.36; older gits get `--batch` (sizes then cost the bytes). */
  private legacy = false;
  private idle: NodeJS.Timeout | null = null;
  /** Requests made in one turn of the event loop go out in one write (and one flush). */
  private outbox: Pending[] = [];
  private flushing: NodeJS.Immediate | null = null;
  /** Processes ended on purpose (idle, or close()): nothing was owed by them. */
  private readonly retired = new WeakSet<ChildProcessWithoutNullStreams>();
  // Parser state for the answer at the head of the queue.
  private head: Buffer = Buffer.alloc(0);
  private body: { buf: Buffer; filled: number; blob: boolean } | null = null;
  private stderr = "";
  /** A byte-bounded LRU: object ids name fixed contents, so an entry is never stale. */
  private readonly cache = new Map<string, Buffer | null>();
  private cached = 0;

  constructor(private readonly cwd: string) {}

  /** Blob bytes by id; null for an object that is not a blob (a tree named by mistake). */
  async contents(oids: string[], paths?: ReadonlyMap<string, string>): Promise<Map<string, Buffer | null>> {
    const out = new Map<string, Buffer | null>();
    const wanted: string[] = [];
    for (const oid of new Set(oids)) {
      if (this.cache.has(oid)) {
        const hit = this.cache.get(oid) ?? null;
        this.cache.delete(oid);
        this.cache.set(oid, hit);
        out.set(oid, hit);
      } else wanted.push(oid);
    }
    const got = await this.ask("contents", wanted, paths);
    wanted.forEach((oid, i) => {
      const b = (got[i] ?? null) as Buffer | null;
      out.set(oid, b);
      this.keep(oid, b);
    });
    return out;
  }

  /** Size in bytes of each blob (null when not a blob), without reading it. */
  async sizes(oids: string[], paths?: ReadonlyMap<string, string>): Promise<Map<string, number | null>> {
    const unique = [...new Set(oids)];
    const got = await this.ask("info", unique, paths);
    return new Map(unique.map((oid, i) => [oid, (got[i] ?? null) as number | null]));
  }

  /** Ends the process now (it would end by itself once idle). */
  close(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    const child = this.child;
    this.child = null;
    if (child) {
      this.retired.add(child);
      child.stdin.end();
    }
  }

  private keep(oid: string, b: Buffer | null): void {
    const size = b?.length ?? 0;
    if (size > CACHE_BYTES / 8 || this.cache.has(oid)) return;
    this.cache.set(oid, b);
    this.cached += size;
    for (const [k, v] of this.cache) {
      if (this.cached <= CACHE_BYTES) break;
      this.cache.delete(k);
      this.cached -= v?.length ?? 0;
    }
  }

  private ask(want: Want, oids: string[], paths?: ReadonlyMap<string, string>): Promise<(Buffer | number | null)[]> {
    if (oids.length === 0) return Promise.resolve([]);
    const bad = oids.find((o) => !isObjectId(o));
    if (bad !== undefined) return Promise.reject(new Error(`internal: blobs are read by object id, not ${JSON.stringify(bad)}`));
    const items: Pending[] = [];
    const promises = oids.map(
      (oid) => new Promise<Buffer | number | null>((resolve, reject) => items.push({ want, oid, path: paths?.get(oid), resolve, reject })),
    );
    this.queue.push(...items);
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    this.outbox.push(...items);
    this.flushing ??= setImmediate(() => {
      this.flushing = null;
      const batch = this.outbox.splice(0);
      if (batch.length > 0) this.write(batch);
    });
    return Promise.all(promises);
  }

  private write(items: Pending[]): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    let child: ChildProcessWithoutNullStreams;
    try {
      child = this.child ?? this.start();
    } catch (err) {
      for (const p of this.queue.splice(0)) p.reject(spawnFailure(this.cwd, err));
      return;
    }
    holdLoop(child, true);
    const lines = this.legacy ? items.map((p) => `${p.oid}\n`).join("") : items.map((p) => `${p.want} ${p.oid}\n`).join("") + "flush\n";
    child.stdin.write(lines);
  }

  private start(): ChildProcessWithoutNullStreams {
    const child = startPipe(this.cwd, ["cat-file", ...(this.legacy ? ["--batch"] : ["--batch-command", "--buffer"])]);
    this.child = child;
    this.head = Buffer.alloc(0);
    this.body = null;
    this.stderr = "";
    child.stdout.on("data", (c: Buffer) => this.onData(c));
    child.stderr.on("data", (c: Buffer) => {
      this.stderr += c.toString("utf8");
    });
    child.stdin.on("error", () => undefined); // the close handler reports why
    child.on("error", (err) => this.failWith(child, spawnFailure(this.cwd, err)));
    child.on("close", (code) => {
      if (this.child === child) this.child = null;
      if (this.retired.has(child) && code === 0) return;
      if (code === 0 && this.queue.length === 0) return;
      const stderr = meaningfulStderr(this.stderr);
      if (!this.legacy && /batch-command/.test(stderr)) {
        // An old git: replay what was asked on the plain `--batch` protocol.
        this.legacy = true;
        if (this.queue.length > 0) this.write(this.queue);
        return;
      }
      const why = stderr.split("\n")[0] || `exit code ${code}`;
      this.failWith(child, new GateError(`git cat-file failed: ${why}`, { hint: CORRUPT_HINT, cause: stderr }));
    });
    return child;
  }

  private failWith(child: ChildProcessWithoutNullStreams, err: GateError): void {
    if (this.child === child) this.child = null;
    for (const p of this.queue.splice(0)) p.reject(err);
  }

  private onData(chunk: Buffer): void {
    let pos = 0;
    while (pos < chunk.length) {
      const p = this.queue[0];
      if (!p) return; // nothing owed: stray output cannot happen with this protocol
      if (this.body) {
        const take = Math.min(this.body.buf.length - this.body.filled, chunk.length - pos);
        chunk.copy(this.body.buf, this.body.filled, pos, pos + take);
        this.body.filled += take;
        pos += take;
        if (this.body.filled === this.body.buf.length) {
          // Content plus its trailing LF: hand out the content only.
          const { buf, blob } = this.body;
          this.body = null;
          this.answer(!blob ? null : p.want === "info" ? buf.length - 1 : buf.subarray(0, buf.length - 1));
        }
        continue;
      }
      const eol = chunk.indexOf(0x0a, pos);
      if (eol < 0) {
        this.head = Buffer.concat([this.head, chunk.subarray(pos)]);
        return;
      }
      const header = Buffer.concat([this.head, chunk.subarray(pos, eol)]).toString("utf8");
      this.head = Buffer.alloc(0);
      pos = eol + 1;
      const m = /^[0-9a-f]+ (\S+) (\d+)$/.exec(header);
      if (!m) {
        // `missing` (or `ambiguous`): no content follows, and an id that cannot be read is corruption.
        // git's reason goes to stderr, which may not have arrived yet: its lines about this object, if any.
        this.settle((q) => q.reject(corruptObject(q.oid, q.path, this.stderrAbout(q.oid))));
        continue;
      }
      const size = Number(m[2]);
      const isBlob = m[1] === "blob";
      if (p.want === "info" && !this.legacy) {
        this.answer(isBlob ? size : null);
        continue;
      }
      // A tree or commit named by mistake: its bytes follow and are skipped.
      this.body = { buf: Buffer.allocUnsafe(size + 1), filled: 0, blob: isBlob };
    }
  }

  /**
   * An object cat-file could not read is answered "missing" (its reason on stderr); an answer with a
   * header and content was read whole, whatever stderr says about other objects.
   */
  private answer(v: Buffer | number | null): void {
    this.settle((p) => p.resolve(v));
  }

  private stderrAbout(oid: string): string {
    return meaningfulStderr(this.stderr)
      .split("\n")
      .filter((l) => l.includes(oid))
      .join("\n");
  }

  private settle(how: (p: Pending) => void): void {
    const p = this.queue.shift();
    if (p) how(p);
    if (this.queue.length === 0 && this.child) {
      holdLoop(this.child, false);
      this.idle = setTimeout(() => this.close(), IDLE_MS);
      this.idle.unref();
    }
  }
}

/** Whether the process and its pipes keep Node running: only while answers are owed. */
function holdLoop(child: ChildProcessWithoutNullStreams, hold: boolean): void {
  for (const h of [child, child.stdin, child.stdout, child.stderr] as { ref(): void; unref(): void }[]) {
    if (hold) h.ref();
    else h.unref();
  }
}
