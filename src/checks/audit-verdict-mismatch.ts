// audit/verdict-mismatch: the commit says the gate passed it, yet today's scan finds a secret in it:
// either the gate ran with another policy, or the trailer was written by hand. Raised by `kvgate audit`.
import { defineRule } from "./define.js";
import { VERDICT_TRAILER } from "../secrets/trailers.js";
import { fileLine } from "../model/rule.js";

type Data = { secret_rule: string; secret_fingerprint: string; trailer_verdict: "pass" };

export const auditVerdictMismatch = defineRule({
  id: "audit/verdict-mismatch",
  severity: "error",
  description: "The commit's Kvgate-Verdict trailer says pass, but the current secret scan of it fails.",
  raisedBy: "audit",
  messages: {
    mismatch: (d: Data, at) =>
      `the commit's ${VERDICT_TRAILER} says pass, but the current scan ` +
      `finds ${d.secret_rule} ${d.secret_fingerprint} at ${fileLine(at)}: ` +
      `rotate it if it is real, and check which policy the gate ran with`,
  },
});
