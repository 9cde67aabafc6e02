// Not a test: measures units({ mode: "staged" }) for 5 staged env files in a 5,000-file repo.
// Run: npx esbuild test/git/measure-staged.ts --bundle --platform=node --format=esm --outfile=/tmp/kvgate-measure.mjs \
//        --banner:js="import {createRequire} from 'module';const require=createRequire(import.meta.url);" && node /tmp/kvgate-measure.mjs
import { performance } from "node:perf_hooks";
import { openRepo } from "../../src/git/index.js";
import { makeRepo } from "../helpers/repo.js";

const repo = await makeRepo();
try {
  for (let i = 0; i < 4995; i++) repo.write(`src/d${i % 50}/f${i}.txt`, `line ${i}\n`);
  for (let i = 0; i < 5; i++) repo.write(`scripts/svc${i}.env`, `ENGINE=vllm\nMAX_MODEL_LEN=${4096 * (i + 1)}\n`);
  repo.stage();
  repo.commit("base");
  for (let i = 0; i < 5; i++) repo.write(`scripts/svc${i}.env`, `ENGINE=vllm\nMAX_MODEL_LEN=${8192 * (i + 1)}\nKV_PIN=1GiB\n`);
  repo.stage();

  const runs: { units: number; list: number; read: number }[] = [];
  for (let run = 0; run < 15; run++) {
    const t0 = performance.now();
    const g = await openRepo(repo.dir);
    const [u] = await g.units({ mode: "staged" });
    const t1 = performance.now();
    const all = await u!.after.list();
    const envs = all.filter((p) => p.endsWith(".env"));
    const t2 = performance.now();
    await u!.after.read(envs);
    await u!.before!.list();
    await u!.before!.read(envs);
    const t3 = performance.now();
    if (u!.files.length !== 5 || all.length !== 5000) throw new Error(`unexpected: ${u!.files.length} files, ${all.length} listed`);
    runs.push({ units: t1 - t0, list: t2 - t1, read: t3 - t2 });
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
  const warm = runs.slice(1);
  console.log(
    `openRepo+units(staged): median ${median(warm.map((r) => r.units)).toFixed(1)} ms; ` +
      `after.list(): ${median(warm.map((r) => r.list)).toFixed(1)} ms; read envs + before.list(): ${median(warm.map((r) => r.read)).toFixed(1)} ms; ` +
      `total ${median(warm.map((r) => r.units + r.list + r.read)).toFixed(1)} ms (first run ${(runs[0]!.units + runs[0]!.list + runs[0]!.read).toFixed(1)} ms)`,
  );
} finally {
  await repo.cleanup();
}
