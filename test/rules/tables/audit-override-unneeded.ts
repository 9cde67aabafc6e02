import { auditOverrideUnneeded } from "../../../src/checks/audit-override-unneeded.js";
import { policyFrom } from "../../helpers/fixture-source.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { addedFile } from "../../secrets/helpers.js";

const SKILL = "agent/managed-skills/aws/SKILL.md";
const PH = "AKIA0000000000000EXAMPLE";

export default ruleTester(auditOverrideUnneeded, {
  valid: [{ name: "placeholders with no override recorded", message: "Add the skill page", commit: { files: [addedFile(SKILL, PH)] } }],
  invalid: [
    {
      name: "the override was recorded, the filter exempts every value: a notice counting them",
      message: "Land with ALLOW_SECRETS=1",
      commit: { files: [addedFile(SKILL, `an id looks like ${PH}\nand again: ${PH}`)] },
      findings: [
        {
          severity: "notice",
          file: null,
          line: null,
          data: { exempt: 2 },
          message:
            "ALLOW_SECRETS=1 was recorded, but the current placeholder filter exempts all 2 credential-shaped value(s) in this commit: the override was not needed",
        },
      ],
    },
    {
      name: "the override was recorded, nothing found; the message names secrets.override",
      message: "Land with KVGATE_ALLOW=1",
      policy: policyFrom({ secrets: { override: "KVGATE_ALLOW" } }),
      commit: { files: [] },
      findings: [
        {
          data: { exempt: 0, fingerprints: [] },
          message: "KVGATE_ALLOW=1 was recorded, but the current scan finds no secret in this commit: the override was not needed",
        },
      ],
    },
  ],
});
