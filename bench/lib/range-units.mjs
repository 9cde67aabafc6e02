// Times the per-commit units of a whole range: git's own `git log -p` (the floor), one commit
// unit per commit (one `git diff` each), the streaming path, the streaming path plus what the engine reads
// (kvgate.yaml and every env file, before and after, for every unit), and addedLinesInRange.
// In-process times (no node start-up), median of RUNS (old path: OLD_RUNS) after nothing is warm
// but the OS cache. Make the repo, bundle, run:
//   node bench/lib/make-fleet-repo.mjs /tmp/fleet 10000 2000
//   npx esbuild bench/lib/range-units.mjs --bundle --platform=node --format=esm --outfile=/tmp/kvgate-range.mjs \
//     --banner:js="import {createRequire} from 'module';const require=createRequire(import.meta.url);"
//   RUNS=5 OLD_RUNS=3 node /tmp/kvgate-range.mjs /tmp/fleet
import { spawn, execFileSync } from "node:child_process";
import { performance } from "node:perf_hooks";
import { openRepo } from "../../src/git/index.js";

const dir = process.argv[2];
if (!dir) {
  console.error("usage: node range-units.mjs <repo dir>");
  process.exit(2);
}
const runs = Number(process.env.RUNS ?? 5);
const oldRuns = Number(process.env.OLD_RUNS ?? 3);
const root = execFileSync("git", ["rev-list", "--max-parents=0", "HEAD"], { cwd: dir, encoding: "utf8" }).trim().split("\n")[0];
const range = `${root}..HEAD`;
const count = Number(execFileSync("git", ["rev-list", "--count", range], { cwd: dir, encoding: "utf8" }).trim());

/** Drains a git command's stdout like a consumer would; resolves with the byte count. */
function gitDrain(args) {
  return new Promise((resolve, reject) => {
    const child = spawn("git", args, { cwd: dir, stdio: ["ignore", "pipe", "inherit"] });
    let bytes = 0;
    child.stdout.on("data", (c) => (bytes += c.length));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(bytes) : reject(new Error(`git ${args[0]} exit ${code}`))));
  });
}

async function envsOf(snapshot) {
  await snapshot.read(["kvgate.yaml", ".kvgate.yaml"]);
  const envs = (await snapshot.list()).filter((p) => p.startsWith("scripts/") && p.endsWith(".env"));
  const got = await snapshot.read(envs);
  return [...got.values()].filter(Boolean).length;
}

const cases = [
  ["git log -p (the floor)", runs, () => gitDrain(["log", "-p", range])],
  [
    "git log --raw -p -U0 (what kvgate runs)",
    runs,
    () => gitDrain(["log", "--reverse", "--raw", "-p", "-z", "-U0", "-M", "--root", "--no-abbrev", "--diff-merges=first-parent", range]),
  ],
  [
    "old: one commit unit per commit",
    oldRuns,
    async () => {
      // What the range did before it streamed: one `git diff` per commit, four at a time.
      const g = await openRepo(dir);
      const commits = await g.commitsInRange(range);
      let n = 0;
      for (let i = 0; i < commits.length; i += 4) {
        const batch = await Promise.all(commits.slice(i, i + 4).map((c) => g.units({ mode: "commit", rev: c.sha })));
        n += batch.length;
      }
      return n;
    },
  ],
  [
    "new: units (streaming)",
    runs,
    async () => {
      const g = await openRepo(dir);
      return (await g.units({ mode: "range", range, unit: "commit" })).length;
    },
  ],
  [
    "new: units + env files before/after",
    runs,
    async () => {
      const g = await openRepo(dir);
      let n = 0;
      for await (const u of g.unitsInRange(range)) {
        n += await envsOf(u.after);
        n += await envsOf(u.before);
      }
      return n;
    },
  ],
  [
    "new: addedLinesInRange",
    runs,
    async () => {
      const g = await openRepo(dir);
      let n = 0;
      for await (const c of g.addedLinesInRange(range)) n += c.files.length;
      return n;
    },
  ],
];

const only = process.env.ONLY ? new RegExp(process.env.ONLY) : null;
const chosen = cases.filter(([label, n]) => n > 0 && (!only || only.test(label)));
console.log(`${dir}: ${count} commits in ${range.slice(0, 12)}..HEAD; medians of in-process wall time, cases interleaved round by round`);
// Round-robin, so load from other work on the machine falls on every case alike.
const times = new Map(chosen.map(([label]) => [label, []]));
const results = new Map();
const rounds = Math.max(...chosen.map(([, n]) => n));
for (let round = 0; round < rounds; round++) {
  for (const [label, n, fn] of chosen) {
    if (round >= n) continue;
    const t0 = performance.now();
    results.set(label, await fn());
    times.get(label).push(performance.now() - t0);
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const floor = median(times.get(chosen[0][0]));
for (const [label, n] of chosen) {
  const xs = [...times.get(label)].sort((a, b) => a - b);
  const m = median(xs);
  console.log(
    `${label.padEnd(40)} median ${m.toFixed(0).padStart(7)} ms  ${(m / floor).toFixed(2).padStart(6)}x floor  ` +
      `(min ${xs[0].toFixed(0)}, max ${xs[xs.length - 1].toFixed(0)}, ${n} runs; result ${results.get(label)})`,
  );
}
