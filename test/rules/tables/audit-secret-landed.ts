import { expect } from "vitest";
import { auditSecretLanded } from "../../../src/checks/audit-secret-landed.js";
import { secretFingerprint } from "../../../src/secrets/redact.js";
import { exact, ruleTester } from "../../helpers/rule-tester.js";
import { FAKE, addedFile } from "../../secrets/helpers.js";

const SKILL = "agent/managed-skills/aws/SKILL.md";
const T = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
const REAL_KEY = { files: [addedFile(SKILL, `AKIA0000000000000EXAMPLE ${FAKE.awsId}`)] };
const fp = secretFingerprint(FAKE.awsId);

export default ruleTester(auditSecretLanded, {
  valid: [{ name: "the same key with no override recorded is a bypass, not this", message: "Quick fix", commit: REAL_KEY }],
  invalid: [
    {
      name: "each real secret, its place, and that its fingerprint was not recorded",
      message: "ALLOW_SECRETS=1",
      commit: REAL_KEY,
      findings: [
        {
          file: SKILL,
          line: 1,
          severity: "error",
          data: exact({ secret_rule: "secret/aws-access-key-id", secret_fingerprint: fp, recorded: false }),
          message: `secret/aws-access-key-id ${fp} at ${SKILL}:1 landed under a recorded ALLOW_SECRETS=1 override (not among its Kvgate-Allowed-Secret trailers): rotate it, then list it as a placeholder only if it is inert`,
        },
      ],
    },
    {
      name: "a fingerprint the commit's Kvgate-Allowed-Secret trailer recorded",
      message: "Land",
      trailers: [
        { key: "Kvgate-Verdict", value: `allowed tree=${T}` },
        { key: "Kvgate-Allowed-Secret", value: `secret/aws-access-key-id ${fp} ${SKILL}:1` },
      ],
      commit: REAL_KEY,
      findings: [{ data: { recorded: true }, message: expect.stringMatching(/override: rotate it/) }],
    },
  ],
});
