// The unit project's setup (vitest.config.ts): a unit test starts no process. Every way node:child_process
// starts one is replaced by a function that records the command and throws; the record fails the test
// even when the code under test catches the throw (src/git/exec.ts turns a failed spawn into a
// GateError, which a test of error paths might expect). The static half of the rule, which files may
// import what, is test/architecture/test-projects.test.ts.
import childProcess from "node:child_process";
import { syncBuiltinESMExports } from "node:module";
import { afterEach } from "vitest";

const STARTERS = ["spawn", "spawnSync", "exec", "execSync", "execFile", "execFileSync", "fork"] as const;
// On globalThis: the guard's own test (test/architecture/test-projects.test.ts) takes what it recorded.
const slot = globalThis as { [k: symbol]: string[] | undefined };
const started = (slot[Symbol.for("kvgate.unit-started")] ??= []);

function refuse(name: string) {
  return (command: unknown, args?: unknown): never => {
    const line = [String(command), ...(Array.isArray(args) ? args.map(String) : [])].join(" ");
    started.push(`${name}(${line})`);
    throw new Error(`a unit test started a process (${name}: ${line}): name the file *.e2e.test.ts, or move the case that needs it to one`);
  };
}

const table = childProcess as unknown as Record<string, unknown>;
for (const name of STARTERS) table[name] = refuse(name);
// The named imports (`import { spawn } from "node:child_process"`) follow the module object only after this.
syncBuiltinESMExports();

afterEach(() => {
  const seen = started.splice(0);
  if (seen.length > 0) throw new Error(`a unit test started ${seen.length} process(es): ${seen.join("; ")}. Name the file *.e2e.test.ts.`);
});
