#!/usr/bin/env node
// The published entry: the bundled CLI. `npm run build` makes dist/cli.js.
import "../dist/cli.js";
