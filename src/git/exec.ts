// The one door to git commands. Every failure becomes a GateError carrying git's stderr as `cause`,
// so a broken repository, a missing object or a bad revision ends in a clear exit 2.
import { simpleGit, type SimpleGit } from "simple-git";
import { GateError } from "../errors.js";

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

export function gitRunner(cwd: string): GitRunner {
  let client: SimpleGit;
  try {
    client = simpleGit({
      baseDir: cwd,
      config: FIXED_CONFIG,
      maxConcurrentProcesses: 4,
      // simple-git resolves a non-zero exit that wrote nothing to stderr; we want every failure.
      errors(error, result) {
        if (error) return error;
        if (result.exitCode === 0) return undefined;
        const stderr = Buffer.concat(result.stdErr).toString("utf8");
        return Buffer.from(stderr || `git exited with code ${result.exitCode}`);
      },
    });
  } catch (err) {
    throw new GateError(`cannot run git in ${cwd}: ${firstLine(err)}`, { cause: err });
  }
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
