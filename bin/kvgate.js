#!/usr/bin/env node
// The published entry: the bundled CLI (`npm run bundle` makes dist/cli.cjs), loaded through V8's
// code cache (bin/load-cli.js). On Node 22+ the module compile cache also covers dist/fast.js.
// What the hooks run on every commit first tries the fast path (dist/fast.js, a small bundle): the
// staged check (`check --staged`; also `kvgate`, `kvgate check`) of a change that cannot touch the
// fleet, and `hook prepare-commit-msg`, are answered there without loading the CLI
// (src/cli/fast-path.ts, src/cli/fast-hook.ts).
import module from "node:module";

module.enableCompileCache?.();
const rest = process.argv[2] === "check" ? process.argv.slice(3) : process.argv.slice(2);
const staged = rest.length === 0 || (rest.length === 1 && rest[0] === "--staged");
const hook = process.argv[2] === "hook";
if (!((staged || hook) && (await (await import("../dist/fast.js")).tryFastPath()))) (await import("./load-cli.js")).loadCli();
