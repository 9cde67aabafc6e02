// The one door to git commands. Every failure becomes a GateError carrying git's stderr as `cause`,
// so a broken repository, a missing object or a bad revision ends in a clear exit 2.
import { existsSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { simpleGit, type SimpleGit } from "simple-git";
import { GateError } from "../errors.js";

/**
 * The GIT_* variables git's own hooks and CI set that must reach our commands: above all
 * GIT_INDEX_FILE (`git commit -a` and `git commit <path>` run pre-commit on a temporary index).
 */
const PASSED_GIT_ENV = [
  "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES",
  "GIT_COMMON_DIR", "GIT_QUARANTINE_PATH", "GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM",
  "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM", "GIT_TRACE", "GIT_TRACE_PERFORMANCE",
];
/** What local, read-only git needs besides: finding itself, its config, a locale and a temp dir. */
const PASSED_ENV = /^(PATH|HOME|USER|LOGNAME|LANG|LANGUAGE|LC_\w+|TZ|TERM|TMPDIR|TEMP|TMP|XDG_\w+|SYSTEMROOT|WINDIR|COMSPEC|PATHEXT|APPDATA|LOCALAPPDATA|PROGRAMDATA|USERPROFILE|HOMEDRIVE|HOMEPATH)$/i;
const PATH_ENV = new Set(["GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR"]);

/**
 * The environment every git process runs with (simple-git's and the cat-file spawn alike, so both
 * see one repository and one index): a short allow-list, with relative repository paths made
 * absolute because we run git from the toplevel, not from where kvgate was started.
 */
export function gitEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
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

export interface GitRunner {
  readonly cwd: string;
  /** Runs `git ...args`; resolves with stdout, rejects with a GateError on any non-zero exit. */
  run(args: string[]): Promise<string>;
  /** Like run, but a failure resolves to null (for "does this exist?" questions). */
  tryRun(args: string[]): Promise<string | null>;
}

export const NEEDS_GIT_HINT = "install git, or put the folder that holds it on PATH";

/**
 * Why a git process could not start, as a GateError. Node says `spawn git ENOENT` both when git is
 * not on PATH and when the folder to run in is gone, so the folder is looked at to tell them apart.
 */
export function spawnFailure(cwd: string, err: unknown, what = "git"): GateError {
  const code = (err as { code?: unknown } | null)?.code;
  const text = err instanceof Error ? err.message : String(err);
  if (code === "ENOENT" || /\bENOENT\b/.test(text)) {
    if (!existsSync(cwd)) return new GateError(`cannot run ${what}: the folder ${cwd} does not exist`, { hint: "pass --repo with an existing folder", cause: err });
    return new GateError("kvgate needs git, and git is not on PATH", { hint: NEEDS_GIT_HINT, cause: err });
  }
  if (code === "EACCES" || /\bspawn git EACCES\b/.test(text)) {
    return new GateError("kvgate needs git, and the git on PATH cannot be run (EACCES)", { hint: NEEDS_GIT_HINT, cause: err });
  }
  return new GateError(`cannot run ${what}: ${firstLine(err)}`, { cause: err });
}

/** A spawn error (as opposed to git running and failing), as simple-git reports it. */
function isSpawnError(err: unknown): boolean {
  return /\bspawn git (ENOENT|EACCES)\b/.test(err instanceof Error ? err.message : String(err));
}

/**
 * `quietExit1`: exit 1 with nothing on stderr is success (rev-parse `--verify -q` of an absent rev).
 * `env`: variables set on top of gitEnv() (e.g. GIT_INDEX_FILE for a private copy of the index).
 */
export function gitRunner(cwd: string, opts: { quietExit1?: boolean; env?: Record<string, string> } = {}): GitRunner {
  let client: SimpleGit;
  try {
    client = simpleGit({
      baseDir: cwd,
      config: FIXED_CONFIG,
      maxConcurrentProcesses: 4,
      allowEnvironment: PASSED_GIT_ENV,
      // simple-git resolves a non-zero exit that wrote nothing to stderr; we want every failure.
      errors(error, result) {
        if (error) return error;
        const stderr = Buffer.concat(result.stdErr).toString("utf8");
        if (result.exitCode === 0 || (opts.quietExit1 && result.exitCode === 1 && stderr === "")) return undefined;
        return Buffer.from(stderr || `git exited with code ${result.exitCode}`);
      },
    });
  } catch (err) {
    throw new GateError(`cannot run git in ${cwd}: ${firstLine(err)}`, { cause: err });
  }
  const env = { ...gitEnv(), ...opts.env };
  client.env(env);
  const run = async (args: string[]): Promise<string> => {
    try {
      return await client.raw(args);
    } catch (err) {
      throw isSpawnError(err) ? spawnFailure(cwd, err) : gitFailure(args, err);
    }
  };
  return {
    cwd,
    run,
    async tryRun(args) {
      try {
        return await client.raw(args);
      } catch (err) {
        // "Does this exist?" must not answer "no" when git itself is missing.
        if (isSpawnError(err)) throw spawnFailure(cwd, err);
        return null;
      }
    },
  };
}

export function gitFailure(args: string[], err: unknown): GateError {
  const stderr = err instanceof Error ? err.message : String(err);
  return new GateError(`git ${args[0] ?? ""} failed: ${firstLine(stderr)}`, { cause: stderr });
}

function firstLine(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.trim().split("\n")[0] ?? "";
}

/** `-c` pairs for a raw spawn (cat-file) so it sees the same config as simple-git's commands. */
export const FIXED_CONFIG_ARGS: string[] = FIXED_CONFIG.flatMap((c) => ["-c", c]);
