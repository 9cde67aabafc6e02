// Times a real `git commit` with whatever hooks the repository's core.hooksPath holds: each run edits
// scripts/s0.env (a comment line, so the change goes through the gate's full path and passes), stages
// it (untimed), then times the `git commit` process. One warm-up, then the median of <runs>.
// Usage: node commit-time.mjs <runs> <repo> <label> <hooksPath>
import { execFileSync, spawnSync } from "node:child_process";
import { appendFileSync } from "node:fs";
import { join } from "node:path";

const [runsArg, repo, label, hooksPath] = process.argv.slice(2);
const runs = Number(runsArg);
const env = { ...process.env, NO_COLOR: "1" };
delete env.HUSKY;
const git = (...args) => execFileSync("git", args, { cwd: repo, env, encoding: "utf8" });
git("config", "core.hooksPath", hooksPath);
let n = 0;
const once = () => {
  appendFileSync(join(repo, "scripts/s0.env"), `# bench commit ${label} ${n++}\n`);
  git("add", "scripts/s0.env");
  const t0 = process.hrtime.bigint();
  const r = spawnSync("git", ["commit", "-q", "-m", `bench ${n}`], { cwd: repo, env, encoding: "utf8" });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) {
    console.error(`${label}: git commit exited ${r.status}\n${r.stdout}${r.stderr}`.slice(0, 3000));
    process.exit(1);
  }
  return { ms, message: git("log", "-1", "--format=%B") };
};
const warm = once();
const times = [];
for (let i = 0; i < runs; i++) times.push(once().ms);
times.sort((a, b) => a - b);
const median = times[Math.floor(times.length / 2)];
const result = { label, runs, median_ms: +median.toFixed(1), min_ms: +times[0].toFixed(1), max_ms: +times[times.length - 1].toFixed(1), exit: 0, trailer: /Kvgate-Verdict: \w+/.exec(warm.message)?.[0] ?? null };
if (process.env.BENCH_JSON) console.log(JSON.stringify(result));
else console.log(`${label.padEnd(46)} median ${result.median_ms.toString().padStart(7)} ms  (min ${result.min_ms}, max ${result.max_ms}, ${runs} runs${result.trailer ? `, ${result.trailer}` : ""})`);
