import { expect } from "vitest";
import { playbookParse } from "../../../src/checks/playbook-parse.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { PB, lines, playbookCase, read } from "../../playbook/helpers.js";

const vars = read({ "playbooks/vars.yml": lines("ctx: 1") }, "playbooks/vars.yml");

export default ruleTester(playbookParse, {
  valid: [playbookCase("a vars file (valid YAML, no play) is not a finding", { services: [], playbooks: [vars] })],
  invalid: [
    {
      ...playbookCase("a YAML error: an error at its line", {
        services: [],
        playbooks: [read({ [PB]: lines("- hosts: all", "  tasks:", "   - x: y: z") }), vars],
        changed: [PB, "playbooks/vars.yml"],
      }),
      findings: [
        {
          file: PB,
          line: 3,
          severity: "error",
          message: expect.stringMatching(/^playbooks\/p\.yaml is not valid YAML: .*Ansible cannot run it as written$/),
        },
      ],
    },
  ],
});
