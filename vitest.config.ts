import { defineConfig } from "vitest/config";
import { readFileSync, readdirSync } from "node:fs";
import { parse } from "yaml";

// The rules/ pack as the bundles carry it (build.mjs embeds it validated), here parsed but not
// validated: src/rules/data.ts validates it at load, so a broken rules/ file fails the tests.
const rules = Object.fromEntries(
  readdirSync("rules")
    .filter((f) => f.endsWith(".yaml"))
    .sort()
    .map((f) => [f, parse(readFileSync(`rules/${f}`, "utf8")) as unknown]),
);

export default defineConfig({
  define: { __KVGATE_RULES__: JSON.stringify(rules) },
  test: {
    include: ["test/**/*.test.ts"],
    // End-to-end tests spawn git and the built CLI; give them room on a 2-core CI machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    globalSetup: ["test/helpers/global-setup.ts"],
  },
});
