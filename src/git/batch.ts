// ONE long-lived `git cat-file --batch-command --buffer` process for a whole range: every unit's
// blobs and sizes go through the same pipe, so 2,000 commits cost one spawn instead of 2,000.
// It holds the event loop only while answers are owed, and exits after a short idle spell
// (a later request starts it again), so neither a CLI run nor a test worker is kept alive by it.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import type { Socket } from "node:net";
import { GateError } from "../errors.js";
import { CORRUPT_HINT, corruptObject, isObjectId, readBlobs } from "./catfile.js";
import { FIXED_CONFIG_ARGS, gitEnv, spawnFailure } from "./exec.js";

type Want = "contents" | "info";
interface Pending {
  want: Want;
  name: string;
  /** The file the object is read for (messages only). */
  path: string | undefined;
  resolve(v: Buffer | number | null): void;
  reject(e: unknown): void;
}

const IDLE_MS = 300;

/** Blobs and sizes by object name; names are object ids or `<commit>:<path>`. */
export class BatchReader {
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

  constructor(private readonly cwd: string) {}

  /**
   * Blob bytes by name; null when a `<rev>:<path>` name has no blob there. An object id that cannot
   * be read is a GateError (see catfile.ts); `paths` (name → file) names the file in it.
   */
  async contents(names: string[], paths?: ReadonlyMap<string, string>): Promise<Map<string, Buffer | null>> {
    return this.ask("contents", names, paths) as Promise<Map<string, Buffer | null>>;
  }

  /** Size in bytes of each blob (null when not a blob), without reading it. */
  async sizes(names: string[], paths?: ReadonlyMap<string, string>): Promise<Map<string, number | null>> {
    return this.ask("info", names, paths) as Promise<Map<string, number | null>>;
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

  private async ask(want: Want, names: string[], paths?: ReadonlyMap<string, string>): Promise<Map<string, Buffer | number | null>> {
    const unique = [...new Set(names)];
    const out = new Map<string, Buffer | number | null>();
    // A name with a newline cannot go through a line protocol: those few take a one-shot process.
    const odd = unique.filter((n) => n.includes("\n"));
    const plain = unique.filter((n) => !n.includes("\n"));
    const answers = plain.length > 0 ? this.send(want, plain, paths) : Promise.resolve([]);
    // Settled now, so a failure of the one-shot read below does not leave it rejected and unheard.
    answers.catch(() => undefined);
    if (odd.length > 0) {
      const blobs = await readBlobs(this.cwd, odd, paths);
      for (const n of odd) {
        const b = blobs.get(n) ?? null;
        out.set(n, want === "info" ? (b ? b.length : null) : b);
      }
    }
    const got = await answers;
    plain.forEach((n, i) => out.set(n, got[i] ?? null));
    return out;
  }

  private send(want: Want, names: string[], paths?: ReadonlyMap<string, string>): Promise<(Buffer | number | null)[]> {
    const promises = names.map(
      (name) => new Promise<Buffer | number | null>((resolve, reject) => this.queue.push({ want, name, path: paths?.get(name), resolve, reject })),
    );
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    this.outbox.push(...this.queue.slice(this.queue.length - names.length));
    this.flushing ??= setImmediate(() => {
      this.flushing = null;
      const items = this.outbox.splice(0);
      if (items.length > 0) this.write(items);
    });
    return Promise.all(promises);
  }

  private write(items: Pending[]): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    const child = this.child ?? this.start();
    child.ref();
    (child.stdout as Socket).ref();
    const lines = this.legacy
      ? items.map((p) => `${p.name}\n`).join("")
      : items.map((p) => `${p.want} ${p.name}\n`).join("") + "flush\n";
    child.stdin.write(lines);
  }

  private start(): ChildProcessWithoutNullStreams {
    const mode = this.legacy ? ["--batch"] : ["--batch-command", "--buffer"];
    const child = spawn("git", [...FIXED_CONFIG_ARGS, "cat-file", ...mode], { cwd: this.cwd, env: gitEnv(), stdio: ["pipe", "pipe", "pipe"] });
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
      const why = this.stderr.trim().split("\n")[0] || `exit code ${code}`;
      if (!this.legacy && /batch-command/.test(this.stderr)) {
        // An old git: replay what was asked on the plain `--batch` protocol.
        this.legacy = true;
        if (this.queue.length > 0) this.write(this.queue);
        return;
      }
      this.fail(child, why, this.stderr);
    });
    return child;
  }

  private fail(child: ChildProcessWithoutNullStreams, why: string, cause: unknown): void {
    this.failWith(child, new GateError(`git cat-file failed: ${why}`, { hint: CORRUPT_HINT, cause }));
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
        this.missing(); // `missing`, `ambiguous`: no content follows
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
   * "missing" for an object id is a corrupt repository. For a `<rev>:<path>` it is usually a path
   * that is not there, but an unreadable object there says the same, its reason on stderr, which
   * this long-lived pipe cannot line up with the answer: a one-shot read (which waits for all of
   * stderr) decides. Reads by path are rare here (snapshots read by the ids of their listing).
   */
  private missing(): void {
    const p = this.queue[0];
    if (p && isObjectId(p.name)) {
      this.settle((q) => q.reject(corruptObject(q.name, q.path, this.stderr)));
    } else if (p && this.stderr.trim() === "") {
      const recheck = readBlobs(this.cwd, [p.name], p.path ? new Map([[p.name, p.path]]) : undefined);
      this.settle((q) => recheck.then(() => q.resolve(null), q.reject));
    } else this.answer(null);
  }

  private answer(v: Buffer | number | null): void {
    // Anything on stderr means some object could not be read: no answer is trusted after it.
    this.settle((p) => (this.stderr.trim() !== "" ? p.reject(corruptObject(p.name, p.path, this.stderr)) : p.resolve(v)));
  }

  private settle(how: (p: Pending) => void): void {
    const p = this.queue.shift();
    if (p) how(p);
    if (this.queue.length === 0 && this.child) {
      this.child.unref();
      (this.child.stdout as Socket).unref();
      this.idle = setTimeout(() => this.close(), IDLE_MS);
      this.idle.unref();
    }
  }
}

/** A byte-bounded LRU of blobs by object id: a range re-reads unchanged env files from memory. */
export class BlobLru {
  private readonly map = new Map<string, Buffer | null>();
  private bytes = 0;
  constructor(private readonly reader: BatchReader, private readonly maxBytes = 64 * 1024 * 1024) {}

  async get(names: string[], paths?: ReadonlyMap<string, string>): Promise<Map<string, Buffer | null>> {
    const out = new Map<string, Buffer | null>();
    const missing: string[] = [];
    for (const n of names) {
      const hit = this.map.get(n);
      if (hit !== undefined || this.map.has(n)) {
        this.map.delete(n);
        this.map.set(n, hit ?? null);
        out.set(n, hit ?? null);
      } else missing.push(n);
    }
    if (missing.length > 0) {
      const got = await this.reader.contents(missing, paths);
      for (const [n, b] of got) {
        out.set(n, b);
        this.keep(n, b);
      }
    }
    return out;
  }

  private keep(name: string, b: Buffer | null): void {
    const size = b?.length ?? 0;
    if (size > this.maxBytes / 8) return;
    if (this.map.has(name)) return;
    this.map.set(name, b);
    this.bytes += size;
    for (const [k, v] of this.map) {
      if (this.bytes <= this.maxBytes) break;
      this.map.delete(k);
      this.bytes -= v?.length ?? 0;
    }
  }
}
