// The no-leak check of bench/secrets-external.sh: no kvgate output (every format of the run) holds a
// whole value of the corpus. Values: every `want` of trufflehog's rows, and every key-like token of 16
// or more characters (letters and digits both) of a case's text. Prints counts only; exits 1 on a leak.
// Usage: node leaks.mjs <labels.json> <tree> <output file> ...
import { readFileSync } from "node:fs";
import { join } from "node:path";

const [labelsFile, tree, ...outputs] = process.argv.slice(2);
const { labels } = JSON.parse(readFileSync(labelsFile, "utf8"));
const values = new Set();
for (const l of labels) {
  for (const v of l.values) values.add(v);
  for (const m of readFileSync(join(tree, l.file), "utf8").matchAll(/[A-Za-z0-9+/=_.~-]{16,}/g)) {
    if (/[A-Za-z]/.test(m[0]) && /[0-9]/.test(m[0])) values.add(m[0]);
  }
}
let leaks = 0;
for (const out of outputs) {
  const text = readFileSync(out, "utf8");
  const held = [...values].filter((v) => text.includes(v));
  leaks += held.length;
  console.log(`${out.split("/").pop()}: ${held.length} of ${values.size} corpus values appear${held.length ? " — LEAK" : ""}`);
}
process.exit(leaks > 0 ? 1 : 0);
