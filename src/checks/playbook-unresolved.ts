// playbook/unresolved: a value kvgate cannot read without running Ansible (a variable defined
// outside the repository's vars, a lookup, a filter or statement beyond the Jinja subset of
// docs/playbooks.md#templates, a role not in the repository). The setting is skipped, so every check
// that needs it runs on the committed env file's value instead (a seat a template writes whole is
// then unsized, never guessed).
import { defineCheck, type Report } from "./define.js";
import { playbooksInUnit } from "../model/playbooks.js";
import { problemsOf } from "../playbook/problems.js";

const messages = {
  unresolved: (d: { problem: string }) => d.problem,
};

export const playbookUnresolved = defineCheck({
  id: "playbook/unresolved",
  severity: "notice",
  description:
    "A playbook value kvgate cannot resolve from the repository's variables (play vars, " +
    "vars_files, roles, inventory, group_vars, host_vars); that setting is skipped.",
  messages,
  run(ctx) {
    const out: Report<typeof messages>[] = [];
    for (const p of problemsOf(playbooksInUnit(ctx), "unresolved")) {
      out.push({
        message: "unresolved",
        data: { problem: p.message, playbook: p.playbook, ...(p.key ? { key: p.key } : {}) },
        file: p.file,
        line: p.line,
        service: p.service ?? null,
        key: p.message,
      });
    }
    return out;
  },
});
