import { waiverUnknownRule } from "../../../src/checks/waiver-unknown-rule.js";
import { ruleTester } from "../../helpers/rule-tester.js";

const waive = (value: string, key = "Kvgate-Waive") => [{ key, value }];

export default ruleTester(waiverUnknownRule, {
  valid: [
    {
      name: "a waiver naming a rule kvgate has",
      beforeFiles: {},
      files: { "scripts/a.env": "A=1\nA=2\n" },
      trailers: waive("env/duplicate-key cleaning up next week"),
    },
  ],
  invalid: [
    {
      name: "a waiver naming an unknown rule is an error about the commit, not a file",
      beforeFiles: {},
      files: { "scripts/a.env": "A=1\n" },
      trailers: waive("kv/covers-contxt typo"),
      findings: [
        {
          severity: "error",
          file: null,
          line: null,
          data: { rule: "kv/covers-contxt" },
          fingerprint: "waiver:kv/covers-contxt",
          commit: "c0ffee0000000000000000000000000000000000",
          message: 'Kvgate-Waive: "kv/covers-contxt" is not a kvgate rule; name a rule id that `kvgate rules` lists',
        },
      ],
    },
    {
      name: "the message names the trailer kvgate.yaml sets (waivers.trailer)",
      beforeFiles: {},
      files: { "kvgate.yaml": "waivers: { trailer: Fleet-Waive }\n", "scripts/a.env": "A=1\n" },
      trailers: waive("kv/nope", "Fleet-Waive"),
      findings: [{ message: 'Fleet-Waive: "kv/nope" is not a kvgate rule; name a rule id that `kvgate rules` lists' }],
    },
  ],
});
