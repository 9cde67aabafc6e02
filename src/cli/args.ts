// Argument parsing with node's util.parseArgs in strict mode: an unknown flag or a missing value is
// a usage error (exit 2), never ignored.
import { parseArgs, type ParseArgsConfig } from "node:util";
import { UsageError } from "../errors.js";

export type Options = NonNullable<ParseArgsConfig["options"]>;

export function parse<T extends Options>(argv: string[], options: T, maxPositionals: number) {
  let parsed;
  try {
    parsed = parseArgs<{ args: string[]; options: T; allowPositionals: true; strict: true }>({ args: argv, options, allowPositionals: true, strict: true });
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
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`--${name} must be one of ${allowed.join(", ")} (got "${value}")`);
  return value as T;
}
