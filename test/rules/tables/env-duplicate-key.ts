import { envDuplicateKey } from "../../../src/checks/env-duplicate-key.js";
import { ruleTester } from "../../helpers/rule-tester.js";

export default ruleTester(envDuplicateKey, {
  valid: [{ name: "no duplicate", files: { "scripts/a.env": "A=1\nB=2\n" } }],
  invalid: [
    { name: "a warning at the second line", files: { "scripts/a.env": "A=1\nA=2\n" }, findings: [{ severity: "warning", line: 2 }] },
  ],
});
