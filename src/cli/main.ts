// The kvgate CLI. Each command lives in commands/<name>.ts and returns an exit code; this file maps
// errors to exit 2 so that the gate fails closed: nothing but a clean pass exits 0.
import { GateError, UsageError } from "../errors.js";
import { USAGE, USAGE_LINE } from "./usage.js";
import { VERSION } from "../version.js";
import { shownError } from "./shown-error.js";
import { commandHelp } from "./help.js";
import { rememberConfigsIn } from "../config/load.js";
import { configCache } from "./config-cache.js";

/** The build's identity (version, rules pack, sources), set by build.mjs; absent when run from sources. */
declare const __KVGATE_BUILD__: string | undefined;

type Command = (argv: string[]) => Promise<number>;

const COMMANDS: Record<string, () => Promise<Command>> = {
  check: async () => (await import("./commands/check.js")).checkCommand,
  explain: async () => (await import("./commands/explain.js")).explainCommand,
  schema: async () => (await import("./commands/schema.js")).schemaCommand,
  plan: async () => (await import("./commands/plan.js")).planCommand,
  audit: async () => (await import("./commands/audit.js")).auditCommand,
  hook: async () => (await import("./commands/hook.js")).hookCommand,
  init: async () => (await import("./commands/init.js")).initCommand,
  rules: async () => (await import("./commands/rules.js")).rulesCommand,
  usage: async () => (await import("./commands/usage.js")).usageCommand,
  observe: async () => (await import("./commands/observe.js")).observeCommand,
};

export async function main(argv: string[]): Promise<number> {
  const [first, ...rest] = argv;
  if (first === "-h" || first === "--help" || first === "help") {
    // `kvgate help check` is `kvgate check --help`.
    const named = first === "help" && rest[0] !== undefined ? commandHelp(rest[0]) : null;
    if (first === "help" && rest[0] !== undefined && named === null) throw new UsageError(`unknown command "${rest[0]}"`);
    process.stdout.write(named ?? USAGE);
    return 0;
  }
  if (first === "-v" || first === "--version") {
    process.stdout.write(`kvgate ${VERSION}\n`);
    return 0;
  }
  // `kvgate` alone, or `kvgate --staged ...`, is `kvgate check`.
  const name = first === undefined || first.startsWith("-") ? "check" : first;
  const args = first === undefined || first.startsWith("-") ? argv : rest;
  const load = COMMANDS[name];
  if (!load) throw new UsageError(`unknown command "${name}"`);
  // A built CLI keeps the configs it validated (src/cli/config-cache.ts); run from sources, it never does.
  if (typeof __KVGATE_BUILD__ !== "undefined") rememberConfigsIn(configCache(__KVGATE_BUILD__));
  if (args.includes("-h") || args.includes("--help")) {
    process.stdout.write(commandHelp(name) ?? USAGE);
    return 0;
  }
  return (await load())(args);
}

function report(e: unknown): number {
  if (e instanceof GateError) {
    process.stderr.write(`kvgate: ${shownError(e.message)}\n`);
    for (const d of e.details) process.stderr.write(`  ${shownError(d)}\n`);
    if (e.hint) process.stderr.write(`  fix: ${shownError(e.hint)}\n`);
    if (e instanceof UsageError) process.stderr.write(`${e.usage ?? USAGE_LINE}\n`);
    return 2;
  }
  const err = e as Error;
  process.stderr.write(`kvgate: internal error: ${shownError(err?.message ?? String(e))}\n`);
  if (process.env.KVGATE_DEBUG) process.stderr.write(`${err?.stack ?? ""}\n`);
  process.stderr.write("  the gate failed closed (exit 2); rerun with KVGATE_DEBUG=1 and report the trace\n");
  return 2;
}

// A reader that stops early (`kvgate check | head`) closes the pipe: what is left to print goes nowhere,
// and the run still ends with its own exit code (the verdict), never a stack trace from the write.
for (const stream of [process.stdout, process.stderr])
  stream.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code !== "EPIPE") throw e;
  });

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.exitCode = report(e);
  },
);
