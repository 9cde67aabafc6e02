// Times whole processes: runs a command N times (after one warm-up) and prints the median and
// spread in milliseconds. Usage: node time.mjs <runs> <cwd> <label> -- <command...>
import { spawnSync } from "node:child_process";

const [runsArg, cwd, label, sep, ...cmd] = process.argv.slice(2);
if (sep !== "--" || cmd.length === 0) {
  console.error("usage: node time.mjs <runs> <cwd> <label> -- <command...>");
  process.exit(2);
}
const runs = Number(runsArg);
const env = { ...process.env, NO_COLOR: "1" };
const once = () => {
  const t0 = process.hrtime.bigint();
  // A run that takes longer than this is recorded as a timeout rather than hanging the whole bench.
  const r = spawnSync(cmd[0], cmd.slice(1), {
    cwd,
    env,
    stdio: ["ignore", "ignore", "pipe"],
    timeout: Number(process.env.BENCH_TIMEOUT_MS ?? 60_000),
  });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  return { ms, status: r.error?.code === "ETIMEDOUT" ? "timeout" : r.status, stderr: r.stderr?.toString() ?? "" };
};
const warm = once();
const times = [];
// A timed-out command is not run again: one timeout says what there is to say.
for (let i = 0; i < runs && warm.status !== "timeout"; i++) times.push(once().ms);
if (times.length === 0) times.push(warm.ms);
times.sort((a, b) => a - b);
const median = times[Math.floor(times.length / 2)];
const result = {
  label,
  runs,
  median_ms: +median.toFixed(1),
  min_ms: +times[0].toFixed(1),
  max_ms: +times[times.length - 1].toFixed(1),
  exit: warm.status,
};
if (process.env.BENCH_JSON) console.log(JSON.stringify(result));
else
  console.log(
    `${label.padEnd(40)} median ${result.median_ms.toString().padStart(7)} ms  (min ${result.min_ms}, max ${result.max_ms}, ${runs} runs, exit ${warm.status})`,
  );
if (warm.status !== 0 && warm.status !== 1) console.error(warm.stderr.slice(0, 2000));
