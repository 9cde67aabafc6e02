// A synthetic repository whose lines look like code and config (issue 28): member chains with dots,
// links, assignments, imports, YAML keys with URLs, and the words of secret names where real code has
// them (a token variable, a password field: about 2 % of the lines), no secret. Written with one
// `git fast-import`: F files, then C commits each rewriting the end of 3 files
// with ~LINES new lines in all (the last commit's lines there removed).
// Usage: node make-code-repo.mjs DIR [files=1000] [commits=2000] [lines=120]
// Also: node make-code-repo.mjs --file PATH MB  (one staged-size file of such lines, for the big-file row)
import { spawn, execFileSync } from "node:child_process";
import { mkdirSync, openSync, writeSync, closeSync } from "node:fs";

let seed = 0x28c0de;
const rnd = (n) => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
const WORDS = ["client", "config", "server", "request", "cache", "router", "model", "stats", "parser", "queue", "seat", "card"];
const w = () => WORDS[rnd(WORDS.length)];
const SHAPES = [
  (i) => `  const ${w()}${i} = this.${w()}.${w()}(options.${w()});`,
  (i) => `  ${w()}.${w()}.${w()} = ${w()}.get("${w()}.${w()}") || ${i % 4096};`,
  (i) => `import { ${w()} } from "./lib/${w()}/${w()}-${i % 50}.js";`,
  (i) => `  // see https://docs.example.com/${w()}/${w()}.html#section-${i % 30}`,
  (i) => `  baseUrl: "https://${w()}-${i % 9}.internal.example.com/v${i % 3}/${w()}",`,
  (i) => `  logger.info("served %d ${w()}s in %s ms", stats.${w()}.count, t${i % 7}.toFixed(2));`,
  (i) => `  if (${w()}.${w()} === ${w()}.${w()}) return ${w()}.${w()}.length > ${i % 100};`,
  (i) => `${w()}_${w()}: ${w()}.${w()}.example.org:${8000 + (i % 900)}`,
  (i) => `  export const ${w().toUpperCase()}_${w().toUpperCase()} = "${w()}.${w()}.v${i % 12}";`,
  (i) => `  return fetch(\`\${base}/api/${w()}/\${id}?page=${i % 20}\`).then((r) => r.json());`,
  (i) => `  ${w()}s.forEach((x) => x.${w()}.set(${i % 64}, new ${w()}.Entry(x.id)));`,
  (i) => `      - name: ${w()} ${w()} ${i % 100}`,
];
// Secret words as code has them, no value: a token variable, a password field, an auth header.
const WORDY = [
  (i) => `  const token = lexer.next(${i % 10}); if (token.type === tt.name) return;`,
  (i) => `  passwordField.value = form.${w()}.value; // ${i % 9}`,
  (i) => `  headers.Authorization = \`Bearer \${session.accessToken}\`; // ${i % 5}`,
];
const line = (i) => (rnd(50) === 0 ? WORDY[rnd(WORDY.length)](i) : SHAPES[rnd(SHAPES.length)](i));
const block = (n, base) => Array.from({ length: n }, (_, k) => line(base + k)).join("\n") + "\n";

const args = process.argv.slice(2);
if (args[0] === "--file") {
  const [, path, mb = "50"] = args;
  const fd = openSync(path, "w");
  let written = 0;
  for (let i = 0; written < Number(mb) * 1e6; i += 1000) {
    const chunk = block(1000, i);
    writeSync(fd, chunk);
    written += Buffer.byteLength(chunk);
  }
  closeSync(fd);
  process.exit(0);
}

const [dir, fArg = "1000", cArg = "2000", lArg = "120"] = args;
const files = Number(fArg);
const commits = Number(cArg);
const lines = Number(lArg);
mkdirSync(dir, { recursive: true });
execFileSync("git", ["init", "-q", "-b", "main", dir]);
let t = 1_700_000_000;
const who = () => `bench <b@example.com> ${t++} +0000`;
const data = (s) => `data ${Buffer.byteLength(s)}\n${s}\n`;
const path = (i) => `src/${WORDS[i % WORDS.length]}/${WORDS[(i >> 4) % WORDS.length]}-${i}.${i % 5 === 0 ? "yaml" : "js"}`;
const child = spawn("git", ["fast-import", "--quiet"], { cwd: dir, stdio: ["pipe", "inherit", "inherit"] });
const send = async (s) => {
  if (!child.stdin.write(s)) await new Promise((res) => child.stdin.once("drain", res));
};
let first = `commit refs/heads/main\ncommitter ${who()}\n${data("initial")}`;
for (let i = 0; i < files; i++) first += `M 644 inline ${path(i)}\n${data(block(20, i))}`;
await send(first);
for (let k = 1; k <= commits; k++) {
  let c = `commit refs/heads/main\ncommitter ${who()}\n${data(`change ${k}: ${w()} ${w()}`)}`;
  // Each commit rewrites the end of 3 files: its lines replace the last commit's there.
  for (let j = 0; j < 3; j++) {
    const i = (k * 7 + j * 131) % files;
    c += `M 644 inline ${path(i)}\n${data(block(20, i) + block(Math.max(1, Math.round(lines / 3)), k * 1000 + j))}`;
  }
  await send(c);
}
child.stdin.end();
const code = await new Promise((res) => child.on("close", res));
if (code !== 0) process.exit(1);
execFileSync("git", ["reset", "-q", "--hard", "main"], { cwd: dir });
