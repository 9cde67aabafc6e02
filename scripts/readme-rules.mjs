// Rewrites the README's generated blocks via the built CLI: the rule list (between the rules markers)
// from the registry, and the CLI section (between the usage markers) from `kvgate --help`, whose
// formats come from the reporter table. `npm run docs:rules`; test/docs/readme.test.ts fails when the
// README and the code differ.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";

const cli = (...args) => execFileSync(process.execPath, ["bin/kvgate.js", ...args], { encoding: "utf8" });
const table = cli("rules", "--format", "markdown").trimEnd();
const usage = cli("--help").trimEnd();
const readme = readFileSync("README.md", "utf8")
  .replace(/(<!-- rules:start -->\n)[\s\S]*?(\n<!-- rules:end -->)/, `$1${table}$2`)
  .replace(/(<!-- usage:start -->\n```\n)[\s\S]*?(\n```\n<!-- usage:end -->)/, `$1${usage}$2`);
writeFileSync("README.md", readme);
