// Writes docs/rules/: one page per rule id and the index, made from each rule's module and its table
// by test/docs/rule-pages.ts, which this script runs through Vite's module runner (the tables are
// TypeScript that the test runner also reads, so one transform serves both). Pages of rules that no
// longer exist are removed. `npm run docs:rules`; test/docs/rule-pages.test.ts fails when they differ.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import { runnerImport } from "vite";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const DIR = join(ROOT, "docs", "rules");
process.chdir(ROOT);

// The test runner's `define`s (the rules pack the bundles embed, __KVGATE_RULES__) set as the runner
// sets them: as globals, from the one config that makes them.
const { module: config } = await runnerImport(join(ROOT, "vitest.config.ts"));
for (const [name, json] of Object.entries(config.default.define ?? {})) globalThis[name] = JSON.parse(json);
const { module } = await runnerImport(join(ROOT, "test", "docs", "rule-pages.ts"));
const pages = await module.rulePages();
mkdirSync(DIR, { recursive: true });
let changed = 0;
for (const file of readdirSync(DIR)) {
  if (!pages.has(file)) {
    rmSync(join(DIR, file));
    changed++;
  }
}
for (const [file, text] of pages) {
  const path = join(DIR, file);
  let old = null;
  try {
    old = readFileSync(path, "utf8");
  } catch {
    // a new rule's page
  }
  if (old !== text) {
    writeFileSync(path, text);
    changed++;
  }
}
console.log(`docs/rules: ${pages.size} pages, ${changed} written or removed`);
