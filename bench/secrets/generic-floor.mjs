// Measures the generic detector's entropy floor: how many values a floor lets through on a corpus of
// real code that holds no secrets (negatives: every text file under a folder, node_modules by
// default), against how many generated secrets it keeps (positives: random passwords and tokens of
// 8 to 40 characters from several alphabets, and word-and-digits passwords). Prints one row per floor.
// Usage: node bench/secrets/generic-floor.mjs [folder:folder…] [max files]
import { build } from "esbuild";
import { readdirSync, readFileSync, statSync, mkdtempSync, rmSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const folders = (process.argv[2] ?? join(root, "node_modules")).split(":");
const maxFiles = Number(process.argv[3] ?? 40000);

// Bundled inside the package folder so the rules/ pack is found next to it (src/rules/root.ts).
const out = mkdtempSync(join(root, "node_modules", ".kvgate-floor-"));
await build({
  stdin: {
    contents: `export { builtinDetectors } from "./src/rules/detectors.ts"; export { scanLines, numberLines } from "./src/secrets/scan.ts"; export { placeholderFilter } from "./src/secrets/placeholders.ts";`,
    resolveDir: root,
    loader: "ts",
  },
  bundle: true,
  platform: "node",
  format: "esm",
  outfile: join(out, "scan.mjs"),
  logLevel: "error",
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
});
const k = await import(join(out, "scan.mjs"));
rmSync(out, { recursive: true, force: true });

// Shannon entropy in bits per character, as src/secrets/entropy.ts computes it (module-local there).
function shannonEntropy(value) {
  const counts = new Map();
  for (const ch of value) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) bits -= (n / value.length) * Math.log2(n / value.length);
  return bits;
}
/** src/secrets/entropy.ts's SHORT_VALUE_SLACK: the row it marks as chosen. */
const CHOSEN_SLACK = 0.5;

const full = k.builtinDetectors();
const generic = full.detectors.find((d) => d.generic);
// Every detector, with the generic one's entropy test off: each generic value is scored here instead.
const set = { ...full, detectors: full.detectors.map((d) => (d.generic ? { ...d, entropy: null } : d)) };
const filter = k.placeholderFilter(full.placeholders, { values: [], patterns: [] });

function genericValues(text) {
  return k
    .scanLines(k.numberLines(text), set)
    .filter((m) => m.detector === set.detectors.find((d) => d.generic) && filter.match(m.value) === null)
    .map((m) => m.value);
}

// Negatives: real files.
const TEXT = /\.(?:js|mjs|cjs|ts|mts|cts|md|json|ya?ml|env|sh|txt|ini|toml|py|html)$/;
const negatives = [];
let files = 0;
function walk(dir) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    if (files >= maxFiles) return;
    const p = join(dir, e.name);
    if (e.isDirectory()) walk(p);
    else if (e.isFile() && TEXT.test(e.name) && statSync(p).size < 2 * 1024 * 1024) {
      files++;
      for (const v of genericValues(readFileSync(p, "utf8"))) negatives.push(v);
    }
  }
}
for (const f of folders) walk(f);

// Positives: generated secrets assigned to secret names, deterministic.
let seed = 0x5eed;
const rnd = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
const pick = (a, n) => Array.from({ length: n }, () => a[Math.floor(rnd() * a.length)]).join("");
const LOWER = "abcdefghijklmnopqrstuvwxyz";
const ALNUM = `ABCDEFGHIJKLMNOPQRSTUVWXYZ${LOWER}0123456789`;
const alphabets = {
  alnum: ALNUM,
  symbols: `${ALNUM}!@#%^&*-_=+`,
  hex: "0123456789abcdef",
  base64: `${ALNUM}+/`,
  lowerdigits: `${LOWER}0123456789`,
};
const WORDS = ["summer", "river", "falcon", "orange", "tiger", "winter", "rocket", "marble", "harbor", "copper"];
const names = ["DB_PASSWORD", "SERVICE_API_KEY_PROD", "mySecretString", "REDIS_PASS", "auth_token", "client_secret"];
const positives = [];
for (let i = 0; i < 2000; i++) {
  const kinds = Object.keys(alphabets);
  const kind = kinds[i % kinds.length];
  const len = 8 + (i % 33);
  const v = pick(alphabets[kind], len);
  positives.push({ kind, v, line: `${names[i % names.length]}=${v}` });
}
for (let i = 0; i < 400; i++) {
  const w = WORDS[i % WORDS.length];
  const v = `${w[0].toUpperCase()}${w.slice(1)}${pick("0123456789", 2 + (i % 3))}${pick("!@#%&*", 1)}${pick(ALNUM, i % 4)}`;
  positives.push({ kind: "word+digits", v, line: `${names[i % names.length]}=${v}` });
}
const posValues = positives.map((p) => ({ ...p, got: genericValues(p.line)[0] ?? null }));

const floors = [3.0, 3.25, 3.5, 3.75, 4.0];
const slacks = [0.25, 0.5, 0.75];
const passes = (v, floor, slack) => shannonEntropy(v) >= Math.min(floor, Math.log2(v.length) - slack);
console.log(`negatives: ${files} files under ${folders.join(", ")}, ${negatives.length} generic candidates after the value and name rules`);
console.log(
  `positives: ${positives.length} generated values (${[...new Set(positives.map((p) => p.kind))].join(", ")}), ${posValues.filter((p) => p.got).length} reach the entropy test`,
);
console.log(
  "| floor | short-value slack | false positives (negatives flagged) | distinct values | per 1,000 files | recall on generated secrets |",
);
console.log("|---|---|---|---|---|---|");
for (const floor of floors)
  for (const slack of slacks) {
    const flagged = negatives.filter((v) => passes(v, floor, slack));
    const fp = flagged.length;
    const distinct = new Set(flagged).size;
    const tp = posValues.filter((p) => p.got && passes(p.got, floor, slack)).length;
    const mark = floor === generic.entropy && slack === CHOSEN_SLACK ? " (chosen)" : "";
    console.log(
      `| ${floor}${mark} | ${slack} | ${fp} | ${distinct} | ${((fp * 1000) / Math.max(files, 1)).toFixed(2)} | ${tp}/${positives.length} (${((100 * tp) / positives.length).toFixed(1)} %) |`,
    );
  }
if (process.env.SHOW)
  for (const v of negatives.filter((v) => passes(v, generic.entropy, CHOSEN_SLACK)).slice(0, Number(process.env.SHOW)))
    console.log("  fp:", process.env.RAW ? v : v.slice(0, 4) + "…" + v.slice(-2), v.length);
