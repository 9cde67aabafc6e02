// kvgate init [--repo DIR]: the hooks (husky, the pre-commit framework, or plain git, whichever the
// repository uses), a starter kvgate.yaml and .github/workflows/kvgate.yml; then the proof that the
// hooks are live. Exit 0: live and proved; 1: not live (what to type is printed); 2: could not run.
import { parse } from "../args.js";
import { resolve } from "node:path";
import { runInit } from "../../init/run.js";

const OPTIONS = { repo: { type: "string" } } as const;

export async function initCommand(argv: string[]): Promise<number> {
  const { values } = parse(argv, OPTIONS, 0);
  const report = runInit(resolve(values.repo ?? process.cwd()));
  const out = [`kvgate init in ${report.root}:`, ...report.lines.map((l) => `  ${l}`)];
  if (report.notLive) {
    out.push(`NOT LIVE: the kvgate hooks do not run on your commits yet: ${report.notLive.reason}`);
    if (report.notLive.output) out.push(...report.notLive.output.split("\n").map((l) => `  | ${l}`));
    for (const f of report.notLive.fix) out.push(`  fix: ${f}`);
    process.stdout.write(out.join("\n") + "\n");
    return 1;
  }
  out.push(
    report.changed === 0
      ? "nothing to change: kvgate is already set up here, and its hooks are live"
      : "live: the next commit runs the gate. Next: fill in the TODOs of kvgate.yaml, then commit the files above",
  );
  process.stdout.write(out.join("\n") + "\n");
  return 0;
}
