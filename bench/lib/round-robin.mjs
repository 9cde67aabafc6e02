// Times several commands round-robin (one run of each in turn, RUNS times, after one warm-up each), so
// a busy machine slows each alike: median wall time and median CPU (user + system of the command and
// its children, from bash's `time`, in microseconds). Usage: node round-robin.mjs <runs> <rows.json>
// where rows.json is [{ "label": ..., "cwd": ..., "cmd": [...] }, ...]. Prints a table, or one JSON
// line a row with BENCH_JSON=1.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";

const [runsArg, file] = process.argv.slice(2);
const rows = JSON.parse(readFileSync(file, "utf8")).map((r) => ({ ...r, wall: [], cpu: [], code: null }));
const env = { ...process.env, NO_COLOR: "1" };
const TIMED = 'TIMEFORMAT="%3R %3U %3S"; { time "$@" >/dev/null 2>&1 ; } 2>&1; echo "exit $?" >&2';
const once = (r) => {
  const p = spawnSync("bash", ["-c", TIMED, "rr", ...r.cmd], { cwd: r.cwd, env, encoding: "utf8" });
  const [wall, user, sys] = p.stdout.trim().split("\n").pop().split(" ").map(Number);
  return { ms: wall * 1000, cpu: (user + sys) * 1000, code: Number(/exit (\d+)/.exec(p.stderr)?.[1] ?? NaN) };
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const r of rows) r.code = once(r).code;
for (let i = 0; i < Number(runsArg); i++)
  for (const r of rows) {
    const t = once(r);
    r.wall.push(t.ms);
    r.cpu.push(t.cpu);
  }
for (const r of rows) {
  const out = {
    label: r.label,
    runs: r.wall.length,
    median_ms: +median(r.wall).toFixed(1),
    cpu_ms: +median(r.cpu).toFixed(1),
    exit: r.code,
  };
  if (process.env.BENCH_JSON) console.log(JSON.stringify(out));
  else
    console.log(
      `${r.label.padEnd(60)} ${String(out.median_ms.toFixed(0)).padStart(6)} ms  cpu ${String(out.cpu_ms.toFixed(0)).padStart(5)} ms  (exit ${r.code})`,
    );
}
