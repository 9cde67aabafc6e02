// Times several commands round-robin (one run of each in turn, after one warm-up of each), so a load
// that comes and goes falls on all of them alike; each under GNU time for its CPU (user + system, git
// children included). Prints one JSON line per command: median wall and CPU in ms.
// Usage: node interleave.mjs <runs> <cwd> <label> -- <command...> [--- <label> -- <command...>]...
import { spawnSync } from "node:child_process";

const [runsArg, cwd, ...rest] = process.argv.slice(2);
const runs = Number(runsArg);
const jobs = [];
for (const group of rest.join("\u0000").split("\u0000---\u0000")) {
  const [label, sep, ...cmd] = group.split("\u0000");
  if (sep !== "--" || cmd.length === 0 || !(runs > 0)) {
    console.error("usage: node interleave.mjs <runs> <cwd> <label> -- <command...> [--- <label> -- <command...>]...");
    process.exit(2);
  }
  jobs.push({ label, cmd, walls: [], cpus: [], status: null, timedOut: false });
}
const timeout = Number(process.env.BENCH_TIMEOUT_MS ?? 60_000);
const once = (job) => {
  const r = spawnSync("/usr/bin/time", ["-f", "%e %U %S", ...job.cmd], {
    cwd,
    env: { ...process.env, NO_COLOR: "1" },
    stdio: ["ignore", "ignore", "pipe"],
    encoding: "utf8",
    timeout,
  });
  if (r.error?.code === "ETIMEDOUT") return { timedOut: true };
  const [wall, user, sys] = (r.stderr.trim().split("\n").pop() ?? "").split(" ").map(Number);
  if (r.status !== 0 && r.status !== 1) console.error(`${job.label}: exit ${r.status}\n${r.stderr.slice(0, 2000)}`);
  return { wall: wall * 1000, cpu: (user + sys) * 1000, status: r.status };
};
for (let round = 0; round <= runs; round++) {
  for (const job of jobs) {
    if (job.timedOut) continue;
    const r = once(job);
    if (r.timedOut) {
      job.timedOut = true;
      continue;
    }
    job.status ??= r.status;
    // Round 0 is the warm-up (the page cache, V8's code cache).
    if (round > 0) {
      job.walls.push(r.wall);
      job.cpus.push(r.cpu);
    }
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const job of jobs) {
  const out = job.timedOut
    ? { label: job.label, runs, exit: "timeout", timeout_ms: timeout }
    : {
        label: job.label,
        runs,
        median_ms: +median(job.walls).toFixed(0),
        min_ms: +Math.min(...job.walls).toFixed(0),
        cpu_ms: +median(job.cpus).toFixed(0),
        exit: job.status,
      };
  console.log(JSON.stringify(out));
}
