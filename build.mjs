// Builds the CLI and the GitHub Action into single ESM bundles.
// One file per entry keeps startup to one module load: the pre-commit hook runs on every commit.
import { build } from "esbuild";

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
  logLevel: "warning",
  // Bundled CommonJS dependencies (simple-git) call require(); give the ESM bundle one.
  banner: { js: "import { createRequire as __kvgateCreateRequire } from 'node:module'; const require = __kvgateCreateRequire(import.meta.url);" },
};

const only = process.argv[2];
const jobs = [];
if (!only || only === "cli") jobs.push(build({ ...common, entryPoints: ["src/cli/main.ts"], outfile: "dist/cli.js" }));
if (!only || only === "action") jobs.push(build({ ...common, entryPoints: ["src/action/main.ts"], outfile: "dist/action/index.js", target: "node24" }));
await Promise.all(jobs);
