// What `kvgate init` writes, read back by sh itself: a runner path quoted by shWord is one word that
// sh gives back unchanged, and the plain-git wrapper parses (`sh -n`). The text: init-files.test.ts.
import { describe, expect, test } from "vitest";
import { spawnSync } from "node:child_process";
import { shWord, wrapperHook } from "../../src/init/hooks.js";

describe("sh reads what init writes", () => {
  test.each(["/opt/kvgate/bin/kvgate-hook", "/Users/Jo Doe/kvgate/bin/kvgate-hook", "/tmp/it's/kvgate-hook"])(
    "the runner path %j comes back from sh as it was",
    (path) => {
      const echoed = spawnSync("sh", ["-c", `printf %s ${shWord(path)}`], { encoding: "utf8" });
      expect(echoed.status).toBe(0);
      expect(echoed.stdout).toBe(path);
    },
  );
  test.each(["pre-commit", "prepare-commit-msg"] as const)("the plain-git wrapper for %s parses (sh -n)", (hook) => {
    const checked = spawnSync("sh", ["-n", "-c", wrapperHook("/opt/kvgate/bin/kvgate-hook", hook)], { encoding: "utf8" });
    expect(checked.stderr).toBe("");
    expect(checked.status).toBe(0);
  });
});
