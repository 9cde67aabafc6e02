// The one door to git: every git process kvgate starts is started here, with one environment and one
// fixed config, and every failure becomes a GateError (git's stderr as `cause`), so a broken
// repository, a missing object or a bad revision ends in a clear exit 2.
//
// Local commands spawn git directly: simple-git's completion step waits a fixed 50 ms after a
// process that printed nothing, and keeps a 50 ms timer alive after every exit, which a pre-commit
// hook pays on each of its processes. simple-git stays for the Action's `git fetch`, the one command
// that talks to a remote: there its guards against unsafe options (`--upload-pack`, `ext::` URLs)
// serve, and 50 ms is noise next to the network.
import { spawn, spawnSync, type ChildProcess, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import type { SimpleGit } from "simple-git";
import { GateError } from "../errors.js";

/**
 * The GIT_* variables git's own hooks and CI set that must reach our commands: above all
 * GIT_INDEX_FILE (`git commit -a` and `git commit <path>` run pre-commit on a temporary index).
 */
const PASSED_GIT_ENV = [
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_INDEX_FILE",
  "GIT_OBJECT_DIRECTORY",
  "GIT_ALTERNATE_OBJECT_DIRECTORIES",
  "GIT_COMMON_DIR",
  "GIT_QUARANTINE_PATH",
  "GIT_CEILING_DIRECTORIES",
  "GIT_DISCOVERY_ACROSS_FILESYSTEM",
  "GIT_CONFIG_GLOBAL",
  "GIT_CONFIG_SYSTEM",
  "GIT_CONFIG_NOSYSTEM",
  "GIT_TRACE",
  "GIT_TRACE_PERFORMANCE",
];
/** What local, read-only git needs besides: finding itself, its config, a locale and a temp dir. */
const PASSED_ENV =
  /^(PATH|HOME|USER|LOGNAME|LANG|LANGUAGE|LC_\w+|TZ|TERM|TMPDIR|TEMP|TMP|XDG_\w+|SYSTEMROOT|WINDIR|COMSPEC|PATHEXT|APPDATA|LOCALAPPDATA|PROGRAMDATA|USERPROFILE|HOMEDRIVE|HOMEPATH)$/i;
const PATH_ENV = new Set(["GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR"]);

/**
 * The environment every git process runs with, so all of them see one repository and one index:
 * a short allow-list, with relative repository paths made absolute because we run git from the
 * toplevel, not from where kvgate was started.
 */
function gitEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    const key = k.toUpperCase();
    if (v === undefined || !(PASSED_ENV.test(k) || PASSED_GIT_ENV.includes(key))) continue;
    out[k] = PATH_ENV.has(key) && v !== "" && !isAbsolute(v) ? resolve(v) : v;
  }
  return out;
}

/**
 * Config every command runs with: paths printed raw (no octal quoting of non-ASCII names), and
 * nothing from the user's config that would reshape the output we parse.
 */
const FIXED_CONFIG = ["core.quotePath=false", "diff.noprefix=false", "diff.mnemonicPrefix=false", "color.ui=false"];
const FIXED_CONFIG_ARGS: string[] = FIXED_CONFIG.flatMap((c) => ["-c", c]);

const NEEDS_GIT_HINT = "install git, or put the folder that holds it on PATH";

/**
 * Why a git process could not start, as a GateError. Node says `spawn git ENOENT` both when git is
 * not on PATH and when the folder to run in is gone, so the folder is looked at to tell them apart.
 */
export function spawnFailure(cwd: string, err: unknown, what = "git"): GateError {
  const code = (err as { code?: unknown } | null)?.code;
  const text = err instanceof Error ? err.message : String(err);
  if (code === "ENOENT" || /\bENOENT\b/.test(text)) {
    if (!existsSync(cwd)) {
      return new GateError(`cannot run ${what}: the folder ${cwd} does not exist`, {
        hint: "pass --repo with an existing folder",
        cause: err,
      });
    }
    return new GateError("kvgate needs git, and git is not on PATH", { hint: NEEDS_GIT_HINT, cause: err });
  }
  if (code === "EACCES" || /\bspawn git EACCES\b/.test(text)) {
    return new GateError("kvgate needs git, and the git on PATH cannot be run (EACCES)", { hint: NEEDS_GIT_HINT, cause: err });
  }
  return new GateError(`cannot run ${what}: ${firstLine(err)}`, { cause: err });
}

function gitFailure(args: string[], err: unknown): GateError {
  const stderr = err instanceof Error ? err.message : String(err);
  return new GateError(`git ${args[0] ?? ""} failed: ${firstLine(stderr)}`, { cause: stderr });
}

export function firstLine(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.trim().split("\n")[0] ?? "";
}

/** A line GIT_TRACE / GIT_TRACE_PERFORMANCE print to stderr when set to 1 or 2: not an error. */
const TRACE_LINE = /^\d\d:\d\d:\d\d\.\d+ \S+:\d+ +(?:trace|performance):/;

/** git's stderr without trace lines: what is left is git saying something went wrong. */
export function meaningfulStderr(stderr: string): string {
  if (!stderr.includes("trace") && !stderr.includes("performance")) return stderr.trim();
  return stderr
    .split("\n")
    .filter((l) => !TRACE_LINE.test(l))
    .join("\n")
    .trim();
}

/**
 * Starts `git <fixed config> ...args` at `cwd`; stdin is a pipe only when asked for, stdout a pipe
 * unless it goes straight to an open file (`toFile`, a descriptor).
 */
function startGit(
  cwd: string,
  args: string[],
  opts: { stdin?: boolean; env?: Record<string, string>; toFile?: number } = {},
): ChildProcess {
  return spawn("git", [...FIXED_CONFIG_ARGS, ...args], {
    cwd,
    env: { ...gitEnv(), ...opts.env },
    stdio: [opts.stdin ? "pipe" : "ignore", opts.toFile ?? "pipe", "pipe"],
  });
}

/** A long-lived git process talked to over stdin/stdout (cat-file's batch protocol). */
export function startPipe(cwd: string, args: string[]): ChildProcessWithoutNullStreams {
  return startGit(cwd, args, { stdin: true }) as ChildProcessWithoutNullStreams;
}

export interface GitResult {
  stdout: Buffer;
  /** Without trace lines. */
  stderr: string;
  /** The exit code; -1 when git was ended by a signal. */
  code: number;
}

/**
 * Runs one git command to its end. Rejects only when git cannot start; any exit code resolves.
 * With `toFile` (an open file's descriptor) its output is written there by git itself (stdout empty).
 */
export function runGit(
  cwd: string,
  args: string[],
  opts: { env?: Record<string, string>; input?: string; toFile?: number } = {},
): Promise<GitResult> {
  if (opts.env === undefined && opts.input === undefined && opts.toFile === undefined) {
    const early = takePrefetched(cwd, args);
    if (early) return early;
  }
  return startRun(cwd, args, opts);
}

/**
 * Commands started before anyone asked (prefetchGit), by cwd and arguments. A global slot under a
 * registered symbol: the hook's fast path (dist/fast.cjs) starts them and the CLI bundle, loaded next
 * in the same process, takes them; two bundles share no module state.
 */
const PREFETCHED = Symbol.for("kvgate.git-prefetch");
type Slotted = typeof globalThis & { [PREFETCHED]?: Map<string, Promise<GitResult>> };

const prefetchKey = (cwd: string, args: readonly string[]): string => `${cwd}\0${args.join("\0")}`;

/**
 * Starts `git ...args` at `cwd` now, for a later runGit with the same cwd and arguments (and no env,
 * input or file) to take instead of starting its own: the hook's fast path, once it knows the full
 * path follows, starts the full path's first git commands so they run while the CLI bundle loads.
 * Only read-only commands are prefetched; one nobody takes just ends.
 */
export function prefetchGit(cwd: string, args: readonly string[]): void {
  const g = globalThis as Slotted;
  const slot = (g[PREFETCHED] ??= new Map());
  const key = prefetchKey(cwd, args);
  if (slot.has(key)) return;
  const run = startRun(cwd, [...args], {});
  run.catch(() => undefined); // a spawn failure is reported to whoever takes it
  slot.set(key, run);
}

function takePrefetched(cwd: string, args: readonly string[]): Promise<GitResult> | null {
  const slot = (globalThis as Slotted)[PREFETCHED];
  if (!slot || slot.size === 0) return null;
  const key = prefetchKey(cwd, args);
  const run = slot.get(key);
  if (!run) return null;
  slot.delete(key);
  return run;
}

function startRun(
  cwd: string,
  args: string[],
  opts: { env?: Record<string, string>; input?: string; toFile?: number },
): Promise<GitResult> {
  return new Promise((resolvePromise, reject) => {
    let child: ChildProcess;
    try {
      child = startGit(cwd, args, { stdin: opts.input !== undefined, env: opts.env, toFile: opts.toFile });
    } catch (err) {
      reject(spawnFailure(cwd, err));
      return;
    }
    const out: Buffer[] = [];
    const errs: Buffer[] = [];
    child.stdout?.on("data", (c: Buffer) => out.push(c));
    child.stderr?.on("data", (c: Buffer) => errs.push(c));
    child.on("error", (err) => reject(spawnFailure(cwd, err)));
    child.on("close", (code) => {
      resolvePromise({ stdout: Buffer.concat(out), stderr: meaningfulStderr(Buffer.concat(errs).toString("utf8")), code: code ?? -1 });
    });
    if (opts.input !== undefined && child.stdin) {
      child.stdin.on("error", () => undefined); // git may exit before reading it all; the exit code says why
      child.stdin.end(opts.input);
    }
  });
}

/**
 * Streams a command's stdout, chunk by chunk. A non-zero exit becomes `fail(stderr, code)`; a
 * consumer that stops early ends the process.
 */
export async function* streamGit(cwd: string, args: string[], fail: (stderr: string, code: number) => GateError): AsyncGenerator<Buffer> {
  let child: ChildProcess;
  try {
    child = startGit(cwd, args);
  } catch (err) {
    throw spawnFailure(cwd, err);
  }
  let stderr = "";
  child.stderr?.on("data", (c: Buffer) => {
    stderr += c.toString("utf8");
  });
  const closed = new Promise<number | null>((res) => child.on("close", res));
  const spawnError = new Promise<Error>((res) => child.on("error", res));
  let done = false;
  try {
    if (child.stdout) for await (const chunk of child.stdout) yield chunk as Buffer;
    const code = await Promise.race([closed, spawnError]);
    if (code instanceof Error) throw spawnFailure(cwd, code);
    if (code !== 0) throw fail(meaningfulStderr(stderr), code ?? -1);
    done = true;
  } finally {
    // The consumer stopped early (or parsing failed): the rest of the output is not wanted.
    if (!done && child.exitCode === null) child.kill();
  }
}

export interface GitRunner {
  readonly cwd: string;
  /** Runs `git ...args`; resolves with stdout, rejects with a GateError on any non-zero exit. */
  run(args: string[]): Promise<string>;
  /** Like run, but a failure resolves to null (for "does this exist?" questions). */
  tryRun(args: string[]): Promise<string | null>;
}

/**
 * The runner for local commands (no simple-git, no completion wait).
 * `quietExit1`: exit 1 with nothing on stderr is success (rev-parse `--verify -q` of an absent rev).
 * `env`: variables set on top of gitEnv() (e.g. GIT_INDEX_FILE for a private copy of the index).
 */
export function gitRunner(cwd: string, opts: { quietExit1?: boolean; env?: Record<string, string> } = {}): GitRunner {
  const ok = (r: GitResult): boolean => r.code === 0 || (opts.quietExit1 === true && r.code === 1 && r.stderr === "");
  return {
    cwd,
    async run(args) {
      const r = await runGit(cwd, args, { env: opts.env });
      if (!ok(r)) throw gitFailure(args, r.stderr || `git exited with code ${r.code}`);
      return r.stdout.toString("utf8");
    },
    async tryRun(args) {
      // "Does this exist?" must not answer "no" when git itself is missing: runGit rejects then.
      const r = await runGit(cwd, args, { env: opts.env });
      return ok(r) ? r.stdout.toString("utf8") : null;
    },
  };
}

/** A spawn error (as opposed to git running and failing), as simple-git reports it. */
function isSpawnError(err: unknown): boolean {
  return /\bspawn git (ENOENT|EACCES)\b/.test(err instanceof Error ? err.message : String(err));
}

/** The runner for commands that reach a remote (`git fetch`): simple-git, see the top of this file. */
export function remoteGitRunner(cwd: string): GitRunner {
  // Loaded on first use: the hooks never reach a remote, and simple-git's module set-up is start-up
  // time every other command would pay.
  let made: Promise<SimpleGit> | null = null;
  const client = (): Promise<SimpleGit> =>
    (made ??= import("simple-git").then(({ simpleGit }) => {
      let c: SimpleGit;
      try {
        c = simpleGit({
          baseDir: cwd,
          config: FIXED_CONFIG,
          maxConcurrentProcesses: 4,
          allowEnvironment: PASSED_GIT_ENV,
          // simple-git resolves a non-zero exit that wrote nothing to stderr; we want every failure.
          errors(error, result) {
            if (error) return error;
            const stderr = meaningfulStderr(Buffer.concat(result.stdErr).toString("utf8"));
            if (result.exitCode === 0) return undefined;
            return Buffer.from(stderr || `git exited with code ${result.exitCode}`);
          },
        });
      } catch (err) {
        throw new GateError(`cannot run git in ${cwd}: ${firstLine(err)}`, { cause: err });
      }
      c.env(gitEnv());
      return c;
    }));
  return {
    cwd,
    async run(args) {
      const c = await client();
      try {
        return await c.raw(args);
      } catch (err) {
        throw isSpawnError(err) ? spawnFailure(cwd, err) : gitFailure(args, err);
      }
    },
    async tryRun(args) {
      const c = await client();
      try {
        return await c.raw(args);
      } catch (err) {
        if (isSpawnError(err)) throw spawnFailure(cwd, err);
        return null;
      }
    },
  };
}

/**
 * The top level of the work tree holding `dir` (`git rev-parse --show-toplevel`), or null when `dir`
 * is in no work tree: where a command run without --repo starts, as git's own commands do.
 */
export async function topLevelOf(dir: string): Promise<string | null> {
  const r = await runGit(dir, ["rev-parse", "--show-toplevel"]);
  const top = r.stdout.toString("utf8").trim();
  return r.code === 0 && top !== "" ? top : null;
}

export interface ToolRun {
  status: number | null;
  stdout: string;
  stderr: string;
  error?: Error;
}

/**
 * A blocking run of git or a tool `kvgate init` sets up (husky, pre-commit, the installed hooks on a
 * canary). Unlike the read-only git above, it runs with the caller's whole environment: the hooks it
 * proves run in the user's environment too, so proving them in a trimmed one would prove nothing.
 */
export function runToolSync(
  file: string,
  argv: readonly string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string; timeout?: number } = {},
): ToolRun {
  const r = spawnSync(file, argv, { ...opts, encoding: "utf8" });
  const out: ToolRun = { status: r.status, stdout: r.stdout ?? "", stderr: r.stderr ?? "" };
  if (r.error) out.error = r.error;
  return out;
}
