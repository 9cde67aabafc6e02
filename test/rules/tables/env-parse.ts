import { expect } from "vitest";
import { envParse } from "../../../src/checks/env-parse.js";
import { ruleTester } from "../../helpers/rule-tester.js";

export default ruleTester(envParse, {
  valid: [{ name: "a clean file", files: { "scripts/a.env": "A=1\n# c\n\nexport B='x'\n" } }],
  invalid: [
    {
      name: "a bad line, with the line",
      files: { "scripts/a.env": "A=1\nnot a line\n" },
      findings: [{ line: 2, message: expect.stringMatching(/line 2 is not KEY=VALUE/) }],
    },
    {
      name: "a NUL byte is a finding, not a crash",
      files: { "scripts/a.env": "A=\u0000\n" },
      findings: [{ line: 1, message: expect.stringMatching(/NUL byte/) }],
    },
  ],
});
