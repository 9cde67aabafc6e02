// audit/secret-landed: a non-placeholder secret landed under a recorded override. The override lets a
// commit through; it does not make the value safe, so the key must be rotated. Raised by `kvgate audit`.
import { defineRule } from "./define.js";
import { fileLine } from "../model/rule.js";

type Data = { secret_rule: string; secret_fingerprint: string; recorded: boolean };

export const auditSecretLanded = defineRule({
  id: "audit/secret-landed",
  severity: "error",
  description: "A non-placeholder secret landed under a recorded override: rotate it.",
  raisedBy: "audit",
  messages: {
    landed: (d: Data, at) =>
      `${d.secret_rule} ${d.secret_fingerprint} at ${fileLine(at)} landed under a recorded ` +
      `${at.overrideName}=1 override${d.recorded ? "" : " (not among its Kvgate-Allowed-Secret trailers)"}: ` +
      `rotate it, then list it as a placeholder only if it is inert`,
  },
});
