// A long history for the audit bench, written with one `git fast-import` (20,000 commits in seconds,
// where a commit per process takes many minutes): F files, then C commits each editing 3 of them
// (a few lines each, some naming tokens and passwords as config does, no real key).
// Usage: node make-history.mjs DIR [files=1000] [commits=20000]
import { spawnSync, execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";

const [dir, fArg = "1000", cArg = "20000"] = process.argv.slice(2);
const files = Number(fArg);
const commits = Number(cArg);
mkdirSync(dir, { recursive: true });
execFileSync("git", ["init", "-q", "-b", "main", dir]);
const parts = [];
let t = 1_700_000_000;
const who = () => `bench <b@example.com> ${t++} +0000`;
const body = (i, k) =>
  [
    `# seat ${i} revision ${k}`,
    `MAX_MODEL_LEN=${8192 + (k % 7) * 1024}`,
    k % 5 === 0 ? `API_TOKEN=\${API_TOKEN}` : `NOTE=tuned ${k}`,
    `PASSWORD_FILE=/run/secrets/p${i}`,
    "",
  ].join("\n");
const data = (s) => `data ${Buffer.byteLength(s)}\n${s}\n`;
let first = `commit refs/heads/main\ncommitter ${who()}\n${data("initial")}`;
for (let i = 0; i < files; i++) first += `M 644 inline scripts/s${i}.env\n${data(body(i, 0))}`;
parts.push(first);
for (let k = 1; k <= commits; k++) {
  let c = `commit refs/heads/main\ncommitter ${who()}\n${data(`change ${k}`)}`;
  for (let j = 0; j < 3; j++) {
    const i = (k * 7 + j * 131) % files;
    c += `M 644 inline scripts/s${i}.env\n${data(body(i, k))}`;
  }
  parts.push(c);
}
const r = spawnSync("git", ["fast-import", "--quiet"], { cwd: dir, input: parts.join("") });
if (r.status !== 0) {
  console.error(r.stderr.toString());
  process.exit(1);
}
execFileSync("git", ["reset", "-q", "--hard", "main"], { cwd: dir });
