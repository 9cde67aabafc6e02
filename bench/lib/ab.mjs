// Times two builds of kvgate on the same command, interleaved (before, after, before, after, …) so a
// busy machine slows both alike; prints each side's median and the ratio. Whole processes. Each build
// runs in its own copy of the repository: the verdict store and the fast path's key in .git/kvgate are
// a build's own, and alternating builds in one repository would make each decline the other's.
// Usage: node ab.mjs <runs> <cwd-before> <cwd-after> <label> <before-bin> <after-bin> -- <kvgate args...>
import { spawnSync } from "node:child_process";

const [runsArg, cwdBefore, cwdAfter, label, before, after, sep, ...args] = process.argv.slice(2);
if (sep !== "--") {
  console.error("usage: node ab.mjs <runs> <cwd-before> <cwd-after> <label> <before-bin> <after-bin> -- <args...>");
  process.exit(2);
}
const env = { ...process.env, NO_COLOR: "1" };
const once = (bin, cwd) => {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [bin, ...args], { cwd, env, stdio: ["ignore", "ignore", "ignore"] });
  return { ms: Number(process.hrtime.bigint() - t0) / 1e6, code: r.status };
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const b = [],
  a = [];
const codes = { before: once(before, cwdBefore).code, after: once(after, cwdAfter).code }; // warm-up, and the exit codes
for (let i = 0; i < Number(runsArg); i++) {
  b.push(once(before, cwdBefore).ms);
  a.push(once(after, cwdAfter).ms);
}
const mb = median(b),
  ma = median(a);
const row = `${label.padEnd(52)} before ${mb.toFixed(0).padStart(6)} ms (exit ${codes.before})  after ${ma.toFixed(0).padStart(6)} ms (exit ${codes.after})  ×${(ma / mb).toFixed(2)}`;
console.log(row);
