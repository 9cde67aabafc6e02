// playbook/unresolved: a value kvgate cannot read without running Ansible (a variable defined
// outside the repo's vars, a filter or lookup beyond default/int/string/trim). The setting is
// skipped, so every check that needs it runs on the committed env file's value instead.
import { defineCheck, type Report } from "./define.js";
import { playbooksInUnit } from "../model/playbooks.js";
import { problemsOf } from "../playbook/problems.js";

const messages = {
  unresolved: (d: { problem: string }) => d.problem,
};

export const playbookUnresolved = defineCheck({
  id: "playbook/unresolved",
  severity: "notice",
  description: "A playbook value kvgate cannot resolve from play vars or in-repo vars_files; that setting is skipped.",
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
