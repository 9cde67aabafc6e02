import { configDefaults, defineConfig } from "vitest/config";
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

// Two projects, told apart by the file name: `*.e2e.test.ts` is end to end (real git repositories, the
// built CLI and Action as processes, PostgreSQL, Chromium, any child process); every other
// `*.test.ts` is a unit test (in-memory and temp-folder tests of the sources, no process started).
// `npm test` runs both; `npm run test:unit` runs the unit project alone, without building the bundles.
// test/architecture/test-projects.test.ts holds each file to its project.
export default defineConfig({
  define: { __KVGATE_RULES__: JSON.stringify(rules) },
  test: {
    // End-to-end tests spawn git and the built CLI; give them room on a 2-core CI machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["test/**/*.test.ts"],
          exclude: [...configDefaults.exclude, "test/**/*.e2e.test.ts"],
          // Unit files share their workers' module cache: loading the sources once, not once per file,
          // is what keeps the project under a minute on two cores. They hold no global state between
          // files (no module mocks, no process.env or cwd changes: the guard's scan refuses them).
          isolate: false,
          // Any child process a unit test starts fails the test, naming the command.
          setupFiles: ["test/helpers/unit-setup.ts"],
        },
      },
      {
        extends: true,
        test: {
          name: "e2e",
          include: ["test/**/*.e2e.test.ts"],
          // Builds dist/ once before the run, for the tests that run what ships (KVGATE_SKIP_BUILD=1 skips it).
          globalSetup: ["test/helpers/global-setup.ts"],
        },
      },
    ],
  },
});
