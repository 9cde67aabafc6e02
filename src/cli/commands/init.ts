// kvgate init [--repo DIR] [--from-host [FILE]] [--host NAME]: the hooks (husky, the pre-commit framework, or plain git, whichever the
// repository uses), a starter kvgate.yaml and .github/workflows/kvgate.yml; then the proof that the
// hooks are live. Exit 0: live and proved; 1: not live (what to type is printed); 2: could not run.
import { parse } from "../args.js";
import { resolve } from "node:path";
import { runInit } from "../../init/run.js";

const OPTIONS = { repo: { type: "string" }, "from-host": { type: "string" }, host: { type: "string" } } as const;

/** `--from-host` alone runs nvidia-smi here; `--from-host FILE` reads a saved output. */
const RUN_HERE = "\u0000here";

export async function initCommand(argv: string[]): Promise<number> {
  const args = argv.flatMap((a, i) =>
    a === "--from-host" && (argv[i + 1] === undefined || argv[i + 1]?.startsWith("-")) ? [`--from-host=${RUN_HERE}`] : [a],
  );
  const { values } = parse(args, OPTIONS, 0);
  const from = values["from-host"];
  const report = await runInit(resolve(values.repo ?? process.cwd()), process.env, {
    ...(from !== undefined ? { fromHost: from === RUN_HERE ? (true as const) : from } : {}),
    ...(values.host !== undefined ? { host: values.host } : {}),
  });
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
