import { auditBypass } from "../../../src/checks/audit-bypass.js";
import { secretFingerprint } from "../../../src/secrets/redact.js";
import { exact, ruleTester } from "../../helpers/rule-tester.js";
import { FAKE, addedFile } from "../../secrets/helpers.js";

const SKILL = "agent/managed-skills/aws/SKILL.md";
const T = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
const REAL_KEY = { files: [addedFile(SKILL, `AKIA0000000000000EXAMPLE ${FAKE.awsId}`)] };
const fp = secretFingerprint(FAKE.awsId);

export default ruleTester(auditBypass, {
  valid: [
    { name: "a commit with placeholders only", message: "Quick fix", commit: { files: [addedFile(SKILL, "AKIA0000000000000EXAMPLE")] } },
  ],
  invalid: [
    {
      name: "a real key with no trailer at all",
      message: "Quick fix",
      commit: REAL_KEY,
      findings: [
        {
          file: SKILL,
          line: 1,
          data: exact({ secret_rule: "secret/aws-access-key-id", secret_fingerprint: fp, trailer_verdict: null }),
          message: `secret/aws-access-key-id ${fp} at ${SKILL}:1 landed without the gate: it has no Kvgate-Verdict trailer and no ALLOW_SECRETS=1 override was recorded. Rotate it`,
        },
      ],
    },
    {
      name: "Kvgate-Verdict: not-run (committed with --no-verify)",
      message: "Quick fix",
      trailers: [{ key: "Kvgate-Verdict", value: `not-run tree=${T}` }],
      commit: REAL_KEY,
      findings: [
        {
          data: { trailer_verdict: "not-run" },
          message: `secret/aws-access-key-id ${fp} at ${SKILL}:1 landed without the gate: its Kvgate-Verdict says not-run (committed with --no-verify?) and no ALLOW_SECRETS=1 override was recorded. Rotate it`,
        },
      ],
    },
  ],
});
