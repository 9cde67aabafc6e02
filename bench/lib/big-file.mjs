// Writes a big text file (default 50 MB) of config-like lines with N real-looking keys planted at
// spread-out lines, and prints the planted line numbers (JSON) so the bench can check 20/20.
// Usage: node big-file.mjs <path> [megabytes=50] [keys=20]
import { openSync, writeSync, closeSync } from "node:fs";
import { randomBytes } from "node:crypto";

const [path, mbArg = "50", keysArg = "20"] = process.argv.slice(2);
if (!path) {
  console.error("usage: node big-file.mjs <path> [megabytes] [keys]");
  process.exit(2);
}
const target = Number(mbArg) * 1_000_000;
const keys = Number(keysArg);
const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const awsId = () => "AKIA" + [...randomBytes(16)].map((b) => UPPER[b % 32]).join("");
const words = ["gpu", "memory", "utilization", "context", "requests", "seat", "card", "radiance", "ledger", "pool", "shard", "batch"];
const filler = (i) =>
  `# line ${i}: ${words[i % 12]} ${words[(i * 7) % 12]} ${words[(i * 5) % 12]} setting=${i % 977} note=${words[(i * 3) % 12]}-${i % 31}\n`;
let sample = 0;
for (let i = 1; i <= 10000; i++) sample += filler(i * 97).length;
const lineBytes = sample / 10000;
const totalLines = Math.floor(target / lineBytes);
const planted = new Set(Array.from({ length: keys }, (_, k) => Math.floor(((k + 0.5) * totalLines) / keys) + 1));
const fd = openSync(path, "w");
let chunk = "";
for (let i = 1; i <= totalLines; i++) {
  chunk += planted.has(i) ? `AWS_ACCESS_KEY_ID=${awsId()}\n` : filler(i);
  if (chunk.length > 1 << 20) {
    writeSync(fd, chunk);
    chunk = "";
  }
}
writeSync(fd, chunk);
closeSync(fd);
console.log(JSON.stringify([...planted].sort((a, b) => a - b)));
