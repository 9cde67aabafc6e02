// Argument parsing with node's util.parseArgs in strict mode: an unknown flag or a missing value is
// a usage error (exit 2), never ignored.
import { parseArgs, type ParseArgsConfig } from "node:util";
import { UsageError } from "../errors.js";
import { parseTimestamp } from "../units/timestamps.js";

export type Options = NonNullable<ParseArgsConfig["options"]>;

export function parse<T extends Options>(argv: string[], options: T, maxPositionals: number) {
  let parsed;
  try {
    parsed = parseArgs<{ args: string[]; options: T; allowPositionals: true; strict: true }>({
      args: argv,
      options,
      allowPositionals: true,
      strict: true,
    });
  } catch (e) {
    throw new UsageError((e as Error).message.replace(/\. To specify a positional argument.*$/s, ""));
  }
  if (parsed.positionals.length > maxPositionals) {
    throw new UsageError(`unexpected argument "${parsed.positionals[maxPositionals]}"`);
  }
  return parsed;
}

export function oneOf<T extends string>(name: string, value: string | undefined, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(value))
    throw new UsageError(`--${name} must be one of ${allowed.join(", ")} (got "${value}")`);
  return value as T;
}

/** --since/--until: a date or an ISO timestamp, as milliseconds; null when not given. */
export function timeOption(name: string, v: string | undefined): number | null {
  if (v === undefined) return null;
  const t = parseTimestamp(v);
  if (t === null) throw new UsageError(`--${name} must be a date or an ISO timestamp (2026-10-05, 2026-10-05T22:00:00Z), got "${v}"`);
  return t;
}

/** Runs a command so that each of its usage errors prints that command's usage line, not the global one. */
export async function withUsage(usage: string, run: () => Promise<number>): Promise<number> {
  try {
    return await run();
  } catch (e) {
    if (e instanceof UsageError && e.usage === undefined) throw new UsageError(e.message, usage);
    throw e;
  }
}
