// ONE `git log --raw -p` process for a whole range, parsed as it streams: per commit its info, its
// raw entries (modes, blob ids, renames) and its patch text (added lines, binary markers). Root
// commits diff against the empty tree (--root), merges against their first parent.
//
// Record layout with -z: SENTINEL sha \0 parents \0 author \0 message \0, then \0, then (when the
// commit changes anything) \n, the raw records (\0-separated), an empty record, and the patch.
// A commit boundary is looked for only at a line start outside a hunk (hunk bodies are counted by
// their headers), so no file content, however crafted, can fake one.
import { spawn } from "node:child_process";
import { GateError } from "../errors.js";
import type { CommitInfo } from "./types.js";
import { commitFromFields } from "./commits.js";
import type { RawEntry } from "./rawdiff.js";
import { FIXED_CONFIG_ARGS, gitEnv, spawnFailure } from "./exec.js";

export interface LogCommit {
  info: CommitInfo;
  /** Toplevel-relative paths, as git printed them. */
  raw: RawEntry[];
  /** The commit's `-U0` patch, for parsePatch. */
  patch: string;
}

const SENTINEL = Buffer.from("\x01kvgate-commit\x02");
const FORMAT = "--format=%x01kvgate-commit%x02%H%x00%P%x00%an <%ae>%x00%B%x00";

/** The diff options of changes.ts (same answers), plus what a log needs to print every commit's diff. */
export const LOG_ARGS = [
  "log", "--reverse", "--no-color", "--encoding=UTF-8", "--no-show-signature", FORMAT,
  "--raw", "-p", "-z", "--root", "--no-abbrev", "--diff-merges=first-parent",
  "-U0", "--inter-hunk-context=0", "--submodule=short", "--src-prefix=a/", "--dst-prefix=b/",
  "-M", "--no-relative", "--no-ext-diff", "--no-textconv", "--ignore-submodules=none",
];

export const LOG_HINT = "run the same range with `git log --raw -p` to see git's own error; kvgate needs git 2.31 or newer";

/** Streams `git log` of `revs` (e.g. `base..tip`), one LogCommit per commit, oldest first. */
export async function* streamLog(cwd: string, revs: string[]): AsyncGenerator<LogCommit> {
  const child = spawn("git", [...FIXED_CONFIG_ARGS, ...LOG_ARGS, ...revs, "--"], { cwd, env: gitEnv(), stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (c: Buffer) => {
    stderr += c.toString("utf8");
  });
  const closed = new Promise<number | null>((resolve) => child.on("close", resolve));
  const spawnError = new Promise<Error>((resolve) => child.on("error", resolve));
  const parser = new LogParser();
  let done = false;
  try {
    for await (const chunk of child.stdout) yield* parser.feed(chunk as Buffer);
    yield* parser.end();
    const code = await Promise.race([closed, spawnError]);
    if (code instanceof Error) throw spawnFailure(cwd, code, "git log");
    if (code !== 0) {
      throw new GateError(`git log failed: ${stderr.trim().split("\n")[0] || `exit code ${code}`}`, { hint: LOG_HINT, cause: stderr });
    }
    done = true;
  } finally {
    // The consumer stopped early (or parsing failed): the rest of the log is not wanted.
    if (!done && child.exitCode === null) child.kill();
  }
}

type State = "header" | "raw" | "patch";

/** Push parser: feed it chunks, it returns the commits completed so far. */
export class LogParser {
  private buf: Buffer = Buffer.alloc(0);
  private state: State = "header";
  private current: { info: CommitInfo; raw: RawEntry[]; patch: Buffer[] } | null = null;
  /** Lines still owed by the hunk being read (old side, new side). */
  private oldLeft = 0;
  private newLeft = 0;
  private pendingMeta: string | null = null;
  private pendingFirst: string | null = null;

  feed(chunk: Buffer): LogCommit[] {
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    const out: LogCommit[] = [];
    const used = this.run(out, false);
    this.buf = this.buf.subarray(used);
    return out;
  }

  end(): LogCommit[] {
    const out: LogCommit[] = [];
    const used = this.run(out, true);
    if (used < this.buf.length && this.buf.subarray(used).some((b) => b !== 0 && b !== 0x0a)) {
      throw new GateError("git log: truncated output", { hint: LOG_HINT });
    }
    this.buf = Buffer.alloc(0);
    this.finish(out);
    return out;
  }

  /** Consumes what it can; returns how many bytes of buf it used. */
  private run(out: LogCommit[], eof: boolean): number {
    const b = this.buf;
    let pos = 0;
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
            return pos;
          }
          fields.push(b.toString("utf8", at, nul));
          at = nul + 1;
        }
        // After the header: \0, then \n when a diff follows.
        if (b.length - at < 2 && !eof) return pos;
        const [sha = "", parents = "", author = "", message = ""] = fields;
        if (!/^[0-9a-f]{40,64}$/.test(sha)) throw new GateError(`git log: unexpected commit id ${JSON.stringify(sha.slice(0, 80))}`, { hint: LOG_HINT });
        this.finish(out);
        this.current = { info: commitFromFields(sha, parents, author, message), raw: [], patch: [] };
        if (b[at] === 0) at++;
        if (b[at] === 0x0a) {
          at++;
          this.state = "raw";
        }
        pos = at;
        continue;
      }
      if (this.state === "raw") {
        if (this.pendingMeta === null && b.length - pos >= SENTINEL.length && startsWith(b, pos, SENTINEL)) {
          this.state = "header";
          continue;
        }
        const nul = b.indexOf(0, pos);
        if (nul < 0) {
          if (eof && pos < b.length) throw new GateError("git log: truncated raw diff", { hint: LOG_HINT });
          return pos;
        }
        const token = b.toString("utf8", pos, nul);
        pos = nul + 1;
        this.rawToken(token);
        continue;
      }
      // patch
      if (this.oldLeft === 0 && this.newLeft === 0) {
        if (b.length - pos < SENTINEL.length && !eof) return pos;
        if (startsWith(b, pos, SENTINEL)) {
          this.state = "header";
          continue;
        }
      }
      if (pos >= b.length) return pos;
      let eol = b.indexOf(0x0a, pos);
      if (eol < 0) {
        if (!eof) return pos;
        eol = b.length;
      }
      this.patchLine(b.subarray(pos, Math.min(eol + 1, b.length)));
      pos = eol + 1;
    }
  }

  private rawToken(token: string): void {
    const cur = this.current;
    if (!cur) throw new GateError("git log: raw diff outside a commit", { hint: LOG_HINT });
    if (this.pendingMeta === null) {
      if (token === "") {
        this.state = "patch";
        this.oldLeft = this.newLeft = 0;
        return;
      }
      if (!token.startsWith(":")) throw new GateError(`git log: unexpected raw record ${JSON.stringify(token.slice(0, 80))}`, { hint: LOG_HINT });
      this.pendingMeta = token;
      return;
    }
    const m = /^:(\d+) (\d+) ([0-9a-f]+) ([0-9a-f]+) ([A-Z])\d*$/.exec(this.pendingMeta.trim());
    if (!m) throw new GateError(`git log: unexpected raw record ${JSON.stringify(this.pendingMeta.slice(0, 80))}`, { hint: LOG_HINT });
    const status = m[5] as string;
    if ((status === "R" || status === "C") && this.pendingFirst === null) {
      this.pendingFirst = token;
      return;
    }
    const oldPath = this.pendingFirst ?? token;
    cur.raw.push({ oldMode: m[1] as string, newMode: m[2] as string, oldOid: m[3] as string, newOid: m[4] as string, status, oldPath, path: token });
    this.pendingMeta = null;
    this.pendingFirst = null;
  }

  private patchLine(line: Buffer): void {
    this.current?.patch.push(line);
    const first = line[0];
    if (this.oldLeft > 0 || this.newLeft > 0) {
      if (first === 0x2b) this.newLeft--; // +
      else if (first === 0x2d) this.oldLeft--; // -
      else if (first === 0x20) {
        this.oldLeft--;
        this.newLeft--;
      }
      // `\ No newline at end of file` owes nothing.
      return;
    }
    if (first === 0x40 && line[1] === 0x40) {
      const m = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/.exec(line.toString("latin1"));
      if (m) {
        this.oldLeft = m[1] === undefined ? 1 : Number(m[1]);
        this.newLeft = m[2] === undefined ? 1 : Number(m[2]);
      }
    }
  }

  private finish(out: LogCommit[]): void {
    const cur = this.current;
    if (!cur) return;
    if (this.pendingMeta !== null) throw new GateError("git log: truncated raw diff", { hint: LOG_HINT });
    out.push({ info: cur.info, raw: cur.raw, patch: Buffer.concat(cur.patch).toString("utf8") });
    this.current = null;
    this.state = "header";
    this.oldLeft = this.newLeft = 0;
  }
}

function startsWith(b: Buffer, pos: number, s: Buffer): boolean {
  if (b.length - pos < s.length) return false;
  for (let i = 0; i < s.length; i++) if (b[pos + i] !== s[i]) return false;
  return true;
}
