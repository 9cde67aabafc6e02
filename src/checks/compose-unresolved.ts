// compose/unresolved: a compose value kvgate cannot read from the repository (a `${VAR}` the `.env`
// beside the file does not set, a bare environment key the deploy host's shell would fill, a path
// outside the repository). The setting is skipped, so the checks that need it run on the committed
// env file's value instead; the notice says which.
import { defineCheck, type Report } from "./define.js";
import { composesInUnit } from "../model/composes.js";
import { problemsOf } from "../playbook/problems.js";
import { asDeployFile } from "../compose/index.js";

const messages = {
  unresolved: (d: { problem: string }) => d.problem,
};

export const composeUnresolved = defineCheck({
  id: "compose/unresolved",
  severity: "notice",
  description: "A compose value kvgate cannot resolve from the .env beside the file; that setting is skipped.",
  messages,
  run(ctx) {
    const out: Report<typeof messages>[] = [];
    for (const p of problemsOf(composesInUnit(ctx).map(asDeployFile), "unresolved")) {
      out.push({
        message: "unresolved",
        data: { problem: p.message, compose: p.playbook, ...(p.key ? { key: p.key } : {}) },
        file: p.file,
        line: p.line,
        service: p.service ?? null,
        key: p.message,
      });
    }
    return out;
  },
});
