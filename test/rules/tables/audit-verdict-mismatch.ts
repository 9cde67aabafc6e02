import { auditVerdictMismatch } from "../../../src/checks/audit-verdict-mismatch.js";
import { secretFingerprint } from "../../../src/secrets/redact.js";
import { exact, ruleTester } from "../../helpers/rule-tester.js";
import { FAKE, addedFile } from "../../secrets/helpers.js";

const SKILL = "agent/managed-skills/aws/SKILL.md";
const PASS = [{ key: "Kvgate-Verdict", value: "pass tree=4b825dc642cb6eb9a060e54bf8d69288fbee4904" }];
const fp = secretFingerprint(FAKE.awsId);

export default ruleTester(auditVerdictMismatch, {
  valid: [
    {
      name: "a pass verdict over placeholders only",
      message: "Raise",
      trailers: PASS,
      commit: { files: [addedFile(SKILL, "AKIA0000000000000EXAMPLE")] },
    },
  ],
  invalid: [
    {
      name: "the trailer says pass, the current scan finds a real key",
      message: "Raise",
      trailers: PASS,
      commit: { files: [addedFile(SKILL, `AKIA0000000000000EXAMPLE ${FAKE.awsId}`)] },
      findings: [
        {
          file: SKILL,
          line: 1,
          severity: "error",
          data: exact({ secret_rule: "secret/aws-access-key-id", secret_fingerprint: fp, trailer_verdict: "pass" }),
          message: `the commit's Kvgate-Verdict says pass, but the current scan finds secret/aws-access-key-id ${fp} at ${SKILL}:1: rotate it if it is real, and check which policy the gate ran with`,
        },
      ],
    },
  ],
});
