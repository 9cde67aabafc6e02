import { expect } from "vitest";
import { envParse } from "../../../src/checks/env-parse.js";
import { defaultPolicy, ruleTester } from "../../helpers/rule-tester.js";
import { emptyFleet } from "../../../src/model/build.js";

const symlinked = { path: "scripts/chat.env", message: "symlink: skipped (only regular files are checked)" };

export default ruleTester(envParse, {
  valid: [
    { name: "a clean file", files: { "scripts/a.env": "A=1\n# c\n\nexport B='x'\n" } },
    {
      name: "a symlink outside the services glob (a docs link) is no service's",
      fleet: emptyFleet(defaultPolicy()),
      notices: [{ ...symlinked, path: "docs/latest.md" }],
    },
  ],
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
    {
      name: "a service's env file committed as a symlink is not read: an error at the file",
      fleet: emptyFleet(defaultPolicy()),
      notices: [symlinked],
      findings: [
        {
          messageId: "not-a-file",
          file: "scripts/chat.env",
          line: 1,
          service: "chat",
          severity: "error",
          message: expect.stringContaining("scripts/chat.env is not read (symlink): kvgate reads only regular files"),
        },
      ],
    },
  ],
});
