// audit/bypass: a secret landed with no recorded override and no gate verdict: the hook did not run
// (--no-verify, or no hook installed). Raised by `kvgate audit`.
import { defineRule } from "./define.js";
import { VERDICT_TRAILER } from "../secrets/trailers.js";
import { fileLine } from "../model/rule.js";

type Data = { secret_rule: string; secret_fingerprint: string; trailer_verdict: string | null };

export const auditBypass = defineRule({
  id: "audit/bypass",
  severity: "error",
  description: "A secret landed with no recorded override and no gate verdict (the gate did not run, e.g. --no-verify).",
  raisedBy: "audit",
  messages: {
    bypass: (d: Data, at) => {
      const how =
        d.trailer_verdict === "not-run"
          ? `its ${VERDICT_TRAILER} says not-run (committed with --no-verify?)`
          : `it has no ${VERDICT_TRAILER} trailer`;
      return (
        `${d.secret_rule} ${d.secret_fingerprint} at ${fileLine(at)} landed without ` +
        `the gate: ${how} and no ${at.overrideName}=1 override was recorded. Rotate it`
      );
    },
  },
});
