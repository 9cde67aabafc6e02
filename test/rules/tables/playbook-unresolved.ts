import { playbookUnresolved } from "../../../src/checks/playbook-unresolved.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { PB, lines, playbookCase, read, service } from "../../playbook/helpers.js";

const voices = service("scripts/voices.env", lines("ENGINE=vllm", "GPU=0", "MAX_MODEL_LEN=40960"));
const opts = { services: new Map([["voices", "scripts/voices.env"]]) };
const play = (...tasks: string[]) => lines("- hosts: fv-ml1", "  tasks:", ...tasks);
const shared = {
  "playbooks/a.yaml": play("    - import_tasks: t.yml"),
  "playbooks/b.yaml": play("    - import_tasks: t.yml"),
  "playbooks/t.yml": lines("- lineinfile: { path: scripts/voices.env, line: 'A={{ x }}' }"),
};

export default ruleTester(playbookUnresolved, {
  valid: [
    playbookCase("every value resolved", {
      services: [voices],
      playbooks: [read({ [PB]: play("    - lineinfile: { path: scripts/voices.env, line: 'MAX_MODEL_LEN=8192' }") }, PB, opts)],
    }),
  ],
  invalid: [
    {
      ...playbookCase("an unresolved value: a notice with its service and key", {
        services: [voices],
        playbooks: [
          read({ [PB]: play("    - lineinfile: { path: /opt/fleet/scripts/voices.env, line: 'MAX_MODEL_LEN={{ ctx }}' }") }, PB, opts),
        ],
      }),
      findings: [{ line: 3, service: "voices", severity: "notice", data: { key: "MAX_MODEL_LEN" } }],
    },
    {
      ...playbookCase("a tasks file included by two playbooks reports its problem once", {
        services: [],
        playbooks: ["playbooks/a.yaml", "playbooks/b.yaml"].map((p) => read(shared, p)),
      }),
      findings: [{ file: "playbooks/t.yml", line: 1 }],
    },
  ],
});
