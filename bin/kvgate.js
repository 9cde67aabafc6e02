#!/usr/bin/env node
// The published entry: the bundled CLI (`npm run bundle` makes dist/cli.cjs), loaded through V8's
// code cache (bin/load-cli.cjs). On Node 22+ the module compile cache also covers dist/fast.cjs.
// What the hooks run on every commit first tries the fast path (dist/fast.cjs, a small bundle): the
// staged check (`check --staged`; also `kvgate`, `kvgate check`) of a change that cannot touch the
// fleet, and `hook prepare-commit-msg`, are answered there without loading the CLI
// (src/cli/fast-path.ts, src/cli/fast-hook.ts).
import module from "node:module";

module.enableCompileCache?.();
// Both bundles are CommonJS, loaded by require(): node's builtins then skip the ESM facades.
const require = module.createRequire(import.meta.url);
const rest = process.argv[2] === "check" ? process.argv.slice(3) : process.argv.slice(2);
const staged = rest.length === 0 || (rest.length === 1 && rest[0] === "--staged");
const hook = process.argv[2] === "hook";
if (!((staged || hook) && (await require("../dist/fast.cjs").tryFastPath()))) require("./load-cli.cjs").loadCli();
