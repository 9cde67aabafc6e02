// Times two or more builds of kvgate on the same command, interleaved (before, after, before, after, …)
// so a busy machine slows each alike; prints each build's median wall time and median CPU (user +
// system of the process and the git it runs), and each later build's ratio to the first. Whole
// processes. Each build runs in its own copy of the repository: the verdict store and the fast
// path's key in .git/kvgate are a build's own, and alternating builds in one repository would make
// each decline the other's.
// Usage: node ab.mjs <runs> <label> <name>=<bin>@<cwd> <name>=<bin>@<cwd> [...] -- <kvgate args...>
import { spawnSync } from "node:child_process";

const [runsArg, label, ...rest] = process.argv.slice(2);
const sep = rest.indexOf("--");
const builds = (sep < 0 ? [] : rest.slice(0, sep)).map((b) => {
  const m = /^([^=]+)=([^@]+)@(.+)$/.exec(b);
  return m ? { name: m[1], bin: m[2], cwd: m[3], wall: [], cpu: [] } : null;
});
if (sep < 0 || builds.length < 2 || builds.includes(null)) {
  console.error("usage: node ab.mjs <runs> <label> <name>=<bin>@<cwd> <name>=<bin>@<cwd> [...] -- <args...>");
  process.exit(2);
}
const args = rest.slice(sep + 1);
const env = { ...process.env, NO_COLOR: "1" };
// bash's `time` reads the children's rusage in microseconds (GNU time prints CPU in 10 ms steps),
// wall time around the command only, not bash's own start.
const TIMED = 'TIMEFORMAT="%3R %3U %3S"; { time "$@" >/dev/null 2>&1 ; } 2>&1; echo "exit $?" >&2';
const once = (b) => {
  const r = spawnSync("bash", ["-c", TIMED, "ab", process.execPath, b.bin, ...args], { cwd: b.cwd, env, encoding: "utf8" });
  const [wall, user, sys] = r.stdout.trim().split("\n").pop().split(" ").map(Number);
  const code = Number(/exit (\d+)/.exec(r.stderr)?.[1] ?? NaN);
  return { ms: wall * 1000, cpu: (user + sys) * 1000, code };
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const b of builds) b.code = once(b).code; // warm-up (the compile cache), and the exit code
for (let i = 0; i < Number(runsArg); i++)
  for (const b of builds) {
    const t = once(b);
    b.wall.push(t.ms);
    b.cpu.push(t.cpu);
  }
const first = builds[0];
const cells = builds.map((b) => {
  const w = median(b.wall);
  const ratio = b === first ? "" : ` ×${(w / median(first.wall)).toFixed(2)}`;
  return `${b.name} ${w.toFixed(0).padStart(4)} ms cpu ${median(b.cpu).toFixed(0).padStart(4)} (exit ${b.code})${ratio}`;
});
console.log(`${label.padEnd(48)} ${cells.join("  ")}`);
