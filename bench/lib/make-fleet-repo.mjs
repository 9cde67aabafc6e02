// Makes a fleet repository for benchmarks: N files in all (env files, playbooks, docs, code), one
// commit, then 5 env files changed and staged. Usage: node make-fleet-repo.mjs DIR N [commits]
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

const [dir, nArg = "5000", commitsArg = "1"] = process.argv.slice(2);
const n = Number(nArg);
const commits = Number(commitsArg);
const env = {
  ...process.env,
  GIT_AUTHOR_NAME: "bench",
  GIT_AUTHOR_EMAIL: "b@example.com",
  GIT_COMMITTER_NAME: "bench",
  GIT_COMMITTER_EMAIL: "b@example.com",
};
const git = (...args) => execFileSync("git", args, { cwd: dir, env, stdio: ["ignore", "pipe", "pipe"] }).toString();
const write = (p, text) => {
  mkdirSync(dirname(join(dir, p)), { recursive: true });
  writeFileSync(join(dir, p), text);
};
mkdirSync(dir, { recursive: true });
git("init", "-q", "-b", "main");
git("config", "commit.gpgsign", "false");
write(
  "kvgate.yaml",
  "fleet:\n  hosts:\n    fv-ml1:\n      gpus:\n        - { index: 0, total: 96GiB, reserve: 1GiB }\n        - { index: 1, total: 96GiB, reserve: 1GiB }\n",
);
const seat = (i, len) =>
  `ENGINE=vllm\nHOST=fv-ml1\nGPU=${i % 2}\nMODEL=Qwen/Qwen3-0.6B\nMAX_MODEL_LEN=${len}\nKV_CACHE_MEMORY_BYTES=${Math.ceil((1.25 * len * 114688) / 2 ** 29) * 2 ** 29}\nGPU_MEMORY_UTILIZATION=0.5\nSERVE_ARGS="--served-model-name s${i} --max-num-seqs 4 --override-generation-config '{\\"max_new_tokens\\":2048}'"\n`;
for (let i = 0; i < 10; i++) write(`scripts/s${i}.env`, seat(i, 8192));
let count = 11;
for (let i = 0; count < n; i++, count++)
  write(`src/mod${Math.floor(i / 100)}/file${i}.ts`, `export const v${i} = ${i};\n// filler line for size\n`);
git("add", "-A");
git("commit", "-q", "-m", "initial");
for (let c = 1; c < commits; c++) {
  write(`src/mod0/file${c % 100}.ts`, `export const v = ${c};\n`);
  write(`scripts/s${c % 10}.env`, seat(c % 10, 8192 + 1024 * (c % 4)));
  git("commit", "-q", "-am", `change ${c}`);
}
for (let i = 0; i < 5; i++) write(`scripts/s${i}.env`, seat(i, 16384));
git("add", "-A");
console.log(dir);
