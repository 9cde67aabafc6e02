// The prefilter's combined matcher, measured (issue 28): the detectors' keywords of rules/secrets.yaml
// as one regex alternation (flat, and as the trie src/secrets/prefilter.ts builds) against the
// Aho–Corasick automata on npm, over a text in 64 KiB chunks (every hit, overlaps included). CPU ms,
// median of 7 after a warm-up. Usage: node matcher.mjs <text file> <node_modules with the packages>
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { parse } from "yaml";

const [file, mods] = process.argv.slice(2);
const root = join(import.meta.dirname, "..", "..");
const spec = parse(readFileSync(join(root, "rules", "secrets.yaml"), "utf8"));
const keywords = [...new Set(spec.detectors.flatMap((d) => [...(d.keywords ?? []), ...(d.file_context ?? [])]))].sort();
const buf = readFileSync(file);
const chunks = [];
for (let i = 0; i < buf.length; i += 65536) chunks.push(buf.toString("latin1", i, Math.min(buf.length, i + 65536)));
const esc = (k) => k.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
function trie(words) {
  const root = new Map();
  for (const w of words) {
    let n = root;
    for (const ch of w) n = n.get(ch) ?? n.set(ch, new Map()).get(ch);
    n.set("", null);
  }
  const emit = (n) => {
    const alts = [...n]
      .filter(([ch]) => ch !== "")
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([ch, kid]) => esc(ch) + emit(kid));
    if (alts.length === 0) return "";
    const body = alts.length === 1 ? alts[0] : `(?:${alts.join("|")})`;
    return n.has("") ? `(?:${body})?` : body;
  };
  return emit(root);
}
function time(name, fn, of = chunks) {
  fn(of);
  const ts = [];
  let n = 0;
  for (let r = 0; r < 7; r++) {
    const t = process.cpuUsage();
    n = fn(of);
    const u = process.cpuUsage(t);
    ts.push((u.user + u.system) / 1000);
  }
  ts.sort((a, b) => a - b);
  const mb = of.reduce((s, c) => s + c.length, 0) / 1e6;
  console.log(`${name.padEnd(44)} ${ts[3].toFixed(1).padStart(9)} ms cpu  ${(ts[3] / mb).toFixed(2).padStart(7)} ms/MB  hits ${n}`);
}
const regexScan = (re) => (of) => {
  let n = 0;
  for (const c of of) {
    re.lastIndex = 0;
    for (let m = re.exec(c); m !== null; m = re.exec(c)) {
      n++;
      re.lastIndex = m.index + 1;
    }
  }
  return n;
};
console.log(`${keywords.length} keywords, ${(buf.length / 1e6).toFixed(1)} MB`);
time(
  "regex: flat alternation, /gi",
  regexScan(
    new RegExp(
      [...keywords]
        .sort((a, b) => b.length - a.length)
        .map(esc)
        .join("|"),
      "gi",
    ),
  ),
);
time("regex: trie of alternatives, /gi (kept)", regexScan(new RegExp(trie(keywords), "gi")));
const req = createRequire(join(mods, "x.js"));
const small = chunks.slice(0, 4);
try {
  const AC = req("ahocorasick");
  const m = new AC(keywords);
  time("ahocorasick (lowercased chunk)", (of) =>
    of.reduce((n, c) => n + m.search(c.toLowerCase()).reduce((k, [, ws]) => k + ws.length, 0), 0),
  );
} catch (e) {
  console.log("ahocorasick: not installed", e.message);
}
try {
  const { AhoCorasick } = req("@monyone/aho-corasick");
  const m = new AhoCorasick(keywords);
  time("@monyone/aho-corasick (lowercased chunk)", (of) => of.reduce((n, c) => n + m.matchInText(c.toLowerCase()).length, 0));
} catch (e) {
  console.log("@monyone/aho-corasick: not installed", e.message);
}
try {
  const MAC = req("modern-ahocorasick");
  const m = new (MAC.default ?? MAC)(keywords);
  time("modern-ahocorasick (first 256 KiB only)", (of) => of.reduce((n, c) => n + m.count(c.toLowerCase()), 0), small);
} catch (e) {
  console.log("modern-ahocorasick: not installed", e.message);
}
