// playbook/parse: a playbook the change touches, or a file it reads (an included tasks file, a vars
// file, a role's file, the inventory, a template it renders), is not valid YAML, Jinja, inventory or
// text, or imports itself (a tasks file, or a role through others); Ansible would refuse to run it.
// A valid YAML file that holds no play (a vars file, a mapping) is not a finding.
import { defineCheck, type Report } from "./define.js";
import { playbooksInUnit } from "../model/playbooks.js";
import { problemsOf } from "../playbook/problems.js";

const messages = {
  parse: (d: { problem: string }) => `${d.problem}; Ansible cannot run it as written`,
};

export const playbookParse = defineCheck({
  id: "playbook/parse",
  severity: "error",
  description:
    "A playbook, or a file it reads (tasks, vars, a role's file, the inventory, a template), is not valid YAML, Jinja, inventory or text, or imports itself.",
  messages,
  run(ctx) {
    const out: Report<typeof messages>[] = [];
    for (const p of problemsOf(playbooksInUnit(ctx), "parse")) {
      out.push({ message: "parse", data: { problem: p.message, playbook: p.playbook }, file: p.file, line: p.line, key: p.message });
    }
    return out;
  },
});
