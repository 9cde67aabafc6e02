// Times a real `git commit` under several sets of hooks, round-robin (run i of every set before run
// i+1 of any), so that a shared machine's load falls on all of them alike. Each commit edits
// scripts/s0.env (a comment line: the change takes the gate's full path and passes), stages it
// (untimed), points core.hooksPath at the set, then times the `git commit` process. One warm-up
// round, then the median of <runs> per set.
// Usage: node commit-time.mjs <runs> <repo> <label>=<hooksPath> ...
import { execFileSync, spawnSync } from "node:child_process";
import { appendFileSync } from "node:fs";
import { join } from "node:path";

const [runsArg, repo, ...pairs] = process.argv.slice(2);
const runs = Number(runsArg);
const sets = pairs.map((p) => ({ label: p.slice(0, p.indexOf("=")), hooks: p.slice(p.indexOf("=") + 1), times: [], trailer: null }));
const env = { ...process.env, NO_COLOR: "1" };
delete env.HUSKY;
const git = (...args) => execFileSync("git", args, { cwd: repo, env, encoding: "utf8" });
let n = 0;
const once = (set) => {
  git("config", "core.hooksPath", set.hooks);
  appendFileSync(join(repo, "scripts/s0.env"), `# bench commit ${n++}\n`);
  git("add", "scripts/s0.env");
  const t0 = process.hrtime.bigint();
  const r = spawnSync("git", ["commit", "-q", "-m", `bench ${n}`], { cwd: repo, env, encoding: "utf8" });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) {
    console.error(`${set.label}: git commit exited ${r.status}\n${r.stdout}${r.stderr}`.slice(0, 3000));
    process.exit(1);
  }
  set.trailer = /Kvgate-Verdict: \w+/.exec(git("log", "-1", "--format=%B"))?.[0] ?? null;
  return ms;
};
for (const set of sets) once(set);
for (let i = 0; i < runs; i++) for (const set of sets) set.times.push(once(set));
for (const set of sets) {
  const t = set.times.sort((a, b) => a - b);
  const result = {
    label: set.label,
    runs,
    median_ms: +t[Math.floor(t.length / 2)].toFixed(1),
    min_ms: +t[0].toFixed(1),
    max_ms: +t[t.length - 1].toFixed(1),
    exit: 0,
    trailer: set.trailer,
  };
  if (process.env.BENCH_JSON) console.log(JSON.stringify(result));
  else
    console.log(
      `${set.label.padEnd(46)} median ${result.median_ms.toString().padStart(7)} ms  (min ${result.min_ms}, max ${result.max_ms}, ${runs} runs${set.trailer ? `, ${set.trailer}` : ""})`,
    );
}
