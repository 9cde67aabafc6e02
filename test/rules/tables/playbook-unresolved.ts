import { expect } from "vitest";
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
      ...playbookCase("a role that is not in the repository: a notice at the reference", {
        services: [],
        playbooks: [read({ [PB]: lines("- hosts: all", "  roles:", "    - vllm") })],
      }),
      findings: [{ line: 3, message: expect.stringContaining("role vllm is not in the repository") }],
    },
    {
      ...playbookCase("a role's template setting from a variable outside the repository: a notice with its service and key", {
        services: [],
        playbooks: [
          read({
            [PB]: lines("- hosts: all", "  roles: [vllm]"),
            "playbooks/roles/vllm/tasks/main.yml": lines("- template: { src: vllm.env.j2, dest: /etc/vllm/coder.env }"),
            "playbooks/roles/vllm/templates/vllm.env.j2": lines("IMAGE=vllm/vllm-openai:v0.8.5", "MAX_MODEL_LEN={{ vault_ctx }}"),
          }),
        ],
      }),
      findings: [{ file: "playbooks/roles/vllm/templates/vllm.env.j2", line: 2, service: "coder", data: { key: "MAX_MODEL_LEN" } }],
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
