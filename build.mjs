// Builds the CLI and the GitHub Action into single ESM bundles.
// One file per entry keeps startup to one module load: the pre-commit hook runs on every commit.
import { build } from "esbuild";
import { readFileSync, readdirSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { parse } from "yaml";

// The rules/ pack, parsed once here: composing YAML documents at every start was the hook's largest
// cost. zod still validates this data at load (src/rules/data.ts).
const rules = Object.fromEntries(
  readdirSync("rules")
    .filter((f) => f.endsWith(".yaml"))
    .sort()
    .map((f) => [f, parse(readFileSync(`rules/${f}`, "utf8"))]),
);

const common = {
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  sourcemap: false,
  // Whitespace and syntax only: names stay readable in stack traces (KVGATE_DEBUG=1).
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: "none",
  define: { __KVGATE_RULES__: JSON.stringify(rules) },
  logLevel: "warning",
  // Bundled CommonJS dependencies (simple-git) call require(); give the ESM bundle one.
  banner: { js: "import { createRequire as __kvgateCreateRequire } from 'node:module'; const require = __kvgateCreateRequire(import.meta.url);" },
};

const only = process.argv[2];
// The rule registry is generated from the files of src/checks/ (a full build only: the test setup
// builds one bundle at a time, and a test fails when the committed registry differs).
if (!only) execFileSync(process.execPath, ["scripts/checks-index.mjs"], { stdio: "inherit" });
const jobs = [];
// pg is bundled like every other dependency (the package has none at run time); esbuild wraps it so
// it only runs when `usage --litellm-db` imports it. pg-native is pg's optional native binding, which
// pg requires inside a try and falls back from: never installed, never bundled.
if (!only || only === "cli") jobs.push(build({ ...common, entryPoints: ["src/cli/main.ts"], outfile: "dist/cli.js", external: ["pg-native"] }));
if (!only || only === "action") jobs.push(build({ ...common, entryPoints: ["src/action/main.ts"], outfile: "dist/action/index.js", target: "node24" }));
await Promise.all(jobs);
