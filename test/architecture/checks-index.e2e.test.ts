// src/checks/index.ts is generated from the files of src/checks/ (scripts/checks-index.mjs, run by
// `npm run bundle`): the committed list must be what the script writes, the script run as a process
// (every rule file listed once: checks-index.test.ts).
import { expect, test } from "vitest";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

test("src/checks/index.ts is what scripts/checks-index.mjs writes (run npm run bundle)", () => {
  const expected = execFileSync(process.execPath, ["scripts/checks-index.mjs", "--stdout"], { encoding: "utf8" });
  expect(readFileSync("src/checks/index.ts", "utf8")).toBe(expected);
});
