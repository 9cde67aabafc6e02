// Runs the built CLI (dist/cli.cjs, built by the globalSetup) as a process, as a user would.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import { GIT_ENV } from "./repo.js";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const BIN = join(ROOT, "bin", "kvgate.js");

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function kvgate(args: string[], opts: { cwd: string; env?: Record<string, string | undefined>; input?: string }): CliRun {
  const env: Record<string, string | undefined> = { ...GIT_ENV, NO_COLOR: "1", ...opts.env };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: opts.cwd, env: env, encoding: "utf8", input: opts.input ?? "" });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A finding as `check --format json` prints it: what the end-to-end tests read back. */
export interface JsonFinding {
  rule: string;
  severity: string;
  status: string;
  file: string | null;
  line: number | null;
  service: string | null;
  message: string;
  data: Record<string, unknown>;
}
