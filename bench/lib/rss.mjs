// Runs a command N times (after a warm-up when RUNS > 1) under GNU time and prints one JSON line:
// median and min wall time, and the largest peak RSS. Usage: node rss.mjs <runs> <label> -- <command...>
import { spawnSync } from "node:child_process";

const [runsArg, label, sep, ...cmd] = process.argv.slice(2);
if (sep !== "--" || cmd.length === 0) {
  console.error("usage: node rss.mjs <runs> <label> -- <command...>");
  process.exit(2);
}
const runs = Number(runsArg);
const once = () => {
  const r = spawnSync("/usr/bin/time", ["-f", "%e %M %U %S", ...cmd], {
    stdio: ["ignore", "ignore", "pipe"],
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
  });
  const last = r.stderr.trim().split("\n").pop() ?? "";
  const [wall, rss, user, sys] = last.split(" ").map(Number);
  if (r.status !== 0) console.error(r.stderr.slice(0, 2000));
  return { wall, rss, cpu: user + sys, status: r.status };
};
const results = [];
for (let i = 0; i < runs; i++) results.push(once());
const walls = results.map((r) => r.wall).sort((a, b) => a - b);
const out = {
  label,
  runs,
  median_s: walls[Math.floor(walls.length / 2)],
  min_s: walls[0],
  cpu_s: +results
    .map((r) => r.cpu)
    .sort((a, b) => a - b)
    [Math.floor(runs / 2)].toFixed(2),
  peak_rss_mib: +(Math.max(...results.map((r) => r.rss)) / 1024).toFixed(1),
  exit: results[0].status,
};
console.log(JSON.stringify(out));
