import { expect } from "vitest";
import { playbookParse } from "../../../src/checks/playbook-parse.js";
import { ruleTester } from "../../helpers/rule-tester.js";
import { PB, lines, playbookCase, read } from "../../playbook/helpers.js";

const vars = read({ "playbooks/vars.yml": lines("ctx: 1") }, "playbooks/vars.yml");
const SITE = "ansible/site.yml";
const role = (files: Record<string, string>) =>
  read({ [SITE]: lines("- hosts: gpu", "  roles: [vllm]"), "ansible/inventory/hosts": lines("[gpu]", "gpu-a"), ...files }, SITE);

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
    {
      ...playbookCase("a role's template that does not render: an error at the template's line", {
        services: [],
        playbooks: [
          role({
            "ansible/roles/vllm/tasks/main.yml": lines("- template: { src: vllm.env.j2, dest: /etc/vllm/coder.env }"),
            "ansible/roles/vllm/templates/vllm.env.j2": lines("MAX_MODEL_LEN=32768", "{% if quant %}", "QUANTIZATION={{ quant }}"),
          }),
        ],
      }),
      findings: [
        {
          file: "ansible/roles/vllm/templates/vllm.env.j2",
          line: 2,
          message: expect.stringContaining("the template does not render: {% if %} is never closed ({% endif %})"),
        },
      ],
    },
    {
      ...playbookCase("a group_vars file that is not a mapping of variables: an error at its line", {
        services: [],
        playbooks: [role({ "ansible/group_vars/gpu.yml": lines("# the GPU hosts", "- gpu_memory_utilization", "- 0.9") })],
      }),
      findings: [{ file: "ansible/group_vars/gpu.yml", line: 2, message: expect.stringContaining("Ansible refuses this one") }],
    },
    {
      ...playbookCase("a role's template that is not text (not UTF-8): an error at the template, not a seat skipped", {
        services: [],
        playbooks: [
          read(
            {
              [SITE]: lines("- hosts: gpu", "  roles: [vllm]"),
              "ansible/inventory/hosts": lines("[gpu]", "gpu-a"),
              "ansible/roles/vllm/tasks/main.yml": lines("- template: { src: vllm.env.j2, dest: /etc/vllm/coder.env }"),
            },
            SITE,
            {
              unreadable: (p) =>
                p === "ansible/roles/vllm/templates/vllm.env.j2" ? "the file is not valid UTF-8; save it as UTF-8" : null,
            },
          ),
        ],
      }),
      findings: [{ file: "ansible/roles/vllm/templates/vllm.env.j2", line: 1, message: expect.stringContaining("not valid UTF-8") }],
    },
    {
      ...playbookCase("an inventory that does not parse: an error at its line", {
        services: [],
        playbooks: [role({ "ansible/inventory/hosts": lines("[gpu]", "gpu-a", "[gpu:vars", "x=1") })],
      }),
      findings: [{ file: "ansible/inventory/hosts", line: 3, message: expect.stringContaining("is not a section header") }],
    },
    {
      ...playbookCase("a role that imports itself through another: an error at the line that closes the loop", {
        services: [],
        playbooks: [
          role({
            "ansible/roles/vllm/meta/main.yml": lines("dependencies: [docker]"),
            "ansible/roles/docker/tasks/main.yml": lines("- import_role: { name: vllm }"),
          }),
        ],
      }),
      findings: [
        { file: "ansible/roles/docker/tasks/main.yml", line: 1, message: expect.stringContaining("import cycle ansible/roles/vllm/") },
      ],
    },
  ],
});
