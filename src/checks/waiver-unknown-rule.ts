// waiver/unknown-rule: a Kvgate-Waive trailer must name a rule kvgate has, or a typo waives nothing
// while the committer believes the finding is waived. Raised by the engine as it reads the trailers.
import { defineRule } from "./define.js";

export const waiverUnknownRule = defineRule({
  id: "waiver/unknown-rule",
  severity: "error",
  description: "A Kvgate-Waive trailer names a rule id kvgate does not have (a typo would waive nothing).",
  raisedBy: "waivers",
  messages: {
    unknown: (d: { rule: string }, at) =>
      `${at.waiverTrailer}: "${d.rule}" is not a kvgate rule; name a rule id that \`kvgate rules\` lists`,
  },
});
