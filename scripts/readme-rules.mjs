// Rewrites the README's rule list (between the rules markers) from the registry, via the built CLI.
// `npm run docs:rules`; test/docs/readme.test.ts fails when the README and the registry differ.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";

const table = execFileSync(process.execPath, ["bin/kvgate.js", "rules", "--format", "markdown"], { encoding: "utf8" }).trimEnd();
const readme = readFileSync("README.md", "utf8");
const out = readme.replace(/(<!-- rules:start -->\n)[\s\S]*?(\n<!-- rules:end -->)/, `$1${table}$2`);
writeFileSync("README.md", out);
