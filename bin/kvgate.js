#!/usr/bin/env node
// The published entry: the bundled CLI (`npm run bundle` makes dist/cli.js). On Node 22+, V8's
// compile cache makes every later start cheaper; Node 20 has no such API and skips it.
import module from "node:module";

module.enableCompileCache?.();
await import("../dist/cli.js");
