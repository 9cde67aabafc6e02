// The one door to git commands. Every failure becomes a GateError carrying git's stderr as `cause`,
// so a broken repository, a missing object or a bad revision ends in a clear exit 2.
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

/** `quietExit1`: exit 1 with nothing on stderr is success (rev-parse `--verify -q` of an absent rev). */
export function gitRunner(cwd: string, opts: { quietExit1?: boolean } = {}): GitRunner {
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
  const env = gitEnv();
  client.env(env);
  const run = async (args: string[]): Promise<string> => {
    try {
      return await client.raw(args);
    } catch (err) {
      throw gitFailure(args, err);
    }
  };
  return {
    cwd,
    run,
    async tryRun(args) {
      try {
        return await client.raw(args);
      } catch {
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
