// Stages one big text file (default 50 MB of config-like lines, no secret) in a repository.
// Usage: node stage-big-file.mjs DIR [MB]  (bench/run.sh; bench/bigfile.sh plants keys with big-file.mjs)
import { execFileSync } from "node:child_process";
import { openSync, writeSync, closeSync } from "node:fs";
import { join } from "node:path";

const [dir, mbArg = "50"] = process.argv.slice(2);
const target = Number(mbArg) * 1e6;
const fd = openSync(join(dir, "big.log"), "w");
let written = 0;
for (let i = 0; written < target; i++) {
  const chunk = Array.from(
    { length: 1000 },
    (_, j) => `2026-12-02T00:00:${String((i + j) % 60).padStart(2, "0")}Z request ${i * 1000 + j} served in ${(i + j) % 97} ms\n`,
  ).join("");
  writeSync(fd, chunk);
  written += Buffer.byteLength(chunk);
}
closeSync(fd);
execFileSync("git", ["add", "big.log"], { cwd: dir });
