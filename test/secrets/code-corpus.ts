// A corpus of real public code for the prefilter's selectivity test (issue 28): the sources of the
// project's own devDependencies, as `npm ci` installs them in node_modules (versions pinned by
// package-lock.json, so every machine and CI builds the same corpus). Rebuilt at test time rather than
// committed: code fetched from elsewhere is not committed to this repository, and these packages are
// real code of many authors and styles (a compiler, a linter, parsers, a bundler, a test runner, a
// database client), with their docs and configs.
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dirname, "..", "..", "node_modules");
const PACKAGES = [
  "typescript",
  "eslint",
  "yaml",
  "zod",
  "vitest",
  "vite",
  "picomatch",
  "pg",
  "ajv",
  "fast-check",
  "prettier",
  "knip",
  "@actions/core",
  "simple-git",
  "csv-parse",
  "re2js",
];
const TEXT = /\.(?:[cm]?js|ts|md|json|ya?ml)$/;
/** Per package, so no one package's style decides the rates. */
const PACKAGE_BYTES = 1_000_000;
/** A file whose lines average longer than this is minified: one line is not a line of code. */
const MINIFIED_LINE = 200;

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .flatMap((e) => {
      const p = join(dir, e.name);
      if (e.isDirectory()) return e.name === "node_modules" ? [] : filesUnder(p);
      return e.isFile() && TEXT.test(e.name) && !e.name.endsWith(".d.ts") ? [p] : [];
    });
}

export interface CodeCorpus {
  lines: string[];
  /** `name@version` of each package read. */
  packages: string[];
}

let corpus: CodeCorpus | null = null;

/** Lines of real code (about 12 MB), the same on every machine that ran `npm ci`. */
export function realCodeCorpus(): CodeCorpus {
  if (corpus) return corpus;
  const lines: string[] = [];
  const packages: string[] = [];
  for (const name of PACKAGES) {
    const dir = join(ROOT, name);
    const version = (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version: string }).version;
    packages.push(`${name}@${version}`);
    let bytes = 0;
    for (const file of filesUnder(dir)) {
      if (bytes >= PACKAGE_BYTES) break;
      const size = statSync(file).size;
      if (size === 0 || size > PACKAGE_BYTES) continue;
      const text = readFileSync(file, "utf8");
      const own = text.split("\n");
      if (text.length / own.length > MINIFIED_LINE) continue;
      lines.push(...own);
      bytes += size;
    }
  }
  corpus = { lines, packages };
  return corpus;
}
