import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // End-to-end tests spawn git and the built CLI; give them room on a 2-core CI machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    globalSetup: ["test/helpers/global-setup.ts"],
  },
});
