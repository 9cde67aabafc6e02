// kvgate init [--repo DIR]: the hooks (.husky/pre-commit, .husky/prepare-commit-msg), a starter
// kvgate.yaml and .github/workflows/kvgate.yml. Idempotent: a second run changes nothing and says so.
import { parse } from "../args.js";
import { repoDirOf } from "../context.js";
import { runInit } from "../../init/run.js";

const OPTIONS = { repo: { type: "string" } } as const;

export async function initCommand(argv: string[]): Promise<number> {
  const { values } = parse(argv, OPTIONS, 0);
  const report = await runInit(repoDirOf(values.repo));
  const out = [`kvgate init in ${report.root}:`, ...report.lines.map((l) => `  ${l}`)];
  out.push(report.changed === 0 ? "nothing to change: kvgate is already set up here" : "next: fill in the TODOs of kvgate.yaml, then commit these files (the hooks run on your next commit)");
  process.stdout.write(out.join("\n") + "\n");
  return 0;
}
