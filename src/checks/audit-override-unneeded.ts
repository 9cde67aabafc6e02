// audit/override-unneeded: a commit recorded the secrets override, but the current placeholder filter
// exempts everything it held, so the override (and its noise) was not needed. Raised by `kvgate audit`.
import { defineRule } from "./define.js";

type Data = { exempt: number; fingerprints: string[] };

export const auditOverrideUnneeded = defineRule({
  id: "audit/override-unneeded",
  severity: "notice",
  description: "A commit recorded an ALLOW_SECRETS override, but the current placeholder filter exempts everything it held.",
  raisedBy: "audit",
  messages: {
    exempt: (d: Data, at) =>
      `${at.overrideName}=1 was recorded, but the current placeholder filter exempts all ` +
      `${d.exempt} credential-shaped value(s) in this commit: the override was not needed`,
    nothing: (_d: Data, at) =>
      `${at.overrideName}=1 was recorded, but the current scan finds no secret in this commit: the override was not needed`,
  },
});
