// Makes one git repository per compose shape of issue 25 (big files, hostile shapes), each a fleet
// whose compose file `kvgate explain` reads. Usage: node compose-shapes.mjs <dir>; prints the shapes
// made, one `name<TAB>repo<TAB>bytes` line each.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

const out = process.argv[2];
if (!out) {
  console.error("usage: node compose-shapes.mjs <dir>");
  process.exit(2);
}

const KVGATE = [
  "version: 1",
  "fleet:",
  "  hosts:",
  "    gpu1:",
  "      gpus:",
  ...[0, 1, 2, 3].map((i) => `        - { index: ${i}, total: 80GiB, reserve: 1GiB }`),
  "",
].join("\n");
const seat = (name, card) =>
  `  ${name}:\n    image: vllm/vllm-openai:v0.10.2\n    command: [Qwen/Qwen3-8B, --max-model-len, "8192", --kv-cache-memory-bytes, "4294967296"]\n` +
  `    deploy:\n      resources:\n        reservations:\n          devices: [{ capabilities: [gpu], device_ids: ["${card}"] }]\n`;
const web = (i) =>
  `  web${i}:\n    image: nginx:1.27\n    environment: { SLOT: "${i}", ROLE: web }\n    ports: ["${8000 + (i % 1000)}:80"]\n`;

/** Services until the text reaches `bytes`. */
function servicesOf(bytes, make) {
  const parts = ["services:\n", seat("chat", 0)];
  let size = parts.join("").length;
  for (let i = 0; size < bytes; i++) {
    const s = make(i);
    parts.push(s);
    size += s.length;
  }
  return parts.join("");
}

const MB = 1024 * 1024;
const shapes = {
  // Many small services: compose-go refuses past 100,000 nodes (loader/reset.go).
  "10 MB of services": { "deploy/compose.yaml": servicesOf(10 * MB, web) },
  "20 MB of services": { "deploy/compose.yaml": servicesOf(20 * MB, web) },
  // Just under compose's node limit: read whole.
  "1.2 MB, 19,000 services (under the node limit)": { "deploy/compose.yaml": servicesOf(1.2 * MB, web) },
  // A few nodes holding a lot of text: 10 MB read, not refused.
  "10 MB in one extension value": {
    "deploy/compose.yaml":
      "x-notes: |\n" +
      "  " +
      "lorem ipsum dolor sit amet ".repeat(40) +
      "\n" +
      ("  " + "x".repeat(1000) + "\n").repeat(10 * 1024) +
      "services:\n" +
      seat("chat", 0),
  },
  "20,000 --- documents in 80 KB": { "deploy/compose.yaml": "services:\n" + seat("chat", 0) + "---\n".repeat(20_000) },
  "an alias bomb": {
    "deploy/compose.yaml":
      "a: &a [x, x, x, x, x, x, x, x, x, x]\n" +
      Array.from({ length: 8 }, (_, k) => {
        const n = String.fromCharCode(98 + k);
        const prev = String.fromCharCode(97 + k);
        return `${n}: &${n} [${Array(10).fill(`*${prev}`).join(", ")}]\n`;
      }).join("") +
      "services:\n" +
      seat("chat", 0) +
      "  bomb:\n    image: x\n    environment: *i\n",
  },
  "an include diamond, 24 levels": (() => {
    const files = { "deploy/compose.yaml": "include: [l0a/compose.yaml, l0b/compose.yaml]\nservices:\n" + seat("chat", 0) };
    for (let i = 0; i < 24; i++)
      for (const side of ["a", "b"])
        files[`deploy/l${i}${side}/compose.yaml`] =
          (i + 1 < 24 ? `include: [../l${i + 1}a/compose.yaml, ../l${i + 1}b/compose.yaml]\n` : "") +
          `services:\n  s${i}${side}:\n    image: nginx\n`;
    return files;
  })(),
};

const git = (repo, ...args) => execFileSync("git", ["-C", repo, ...args], { stdio: "ignore" });
let n = 0;
for (const [name, files] of Object.entries(shapes)) {
  const repo = join(out, `shape-${n++}`);
  mkdirSync(repo, { recursive: true });
  git(repo, "init", "-q");
  const all = { "kvgate.yaml": KVGATE, ...files };
  for (const [p, text] of Object.entries(all)) {
    mkdirSync(dirname(join(repo, p)), { recursive: true });
    writeFileSync(join(repo, p), text);
  }
  git(repo, "add", "-A");
  git(repo, "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-q", "-m", name);
  const bytes = Object.values(files).reduce((a, t) => a + t.length, 0);
  console.log(`${name}\t${repo}\t${bytes}`);
}
