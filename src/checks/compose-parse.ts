// compose/parse: a compose file the change touches (or a file it pulls in) is something
// `docker compose config` refuses: a YAML error, an extends or include cycle, a missing target, a
// service that is not a mapping, an invalid `${`. Its services are not read, so this is an error.
import { defineCheck, type Report } from "./define.js";
import { composesInUnit } from "../model/composes.js";
import { problemsOf } from "../playbook/problems.js";
import { asDeployFile } from "../compose/index.js";

const messages = {
  parse: (d: { problem: string }) => `${d.problem}; kvgate cannot size what it deploys until it parses`,
};

export const composeParse = defineCheck({
  id: "compose/parse",
  severity: "error",
  description:
    "A compose file (or a file it pulls in) is not one docker compose can load: a YAML " +
    "error, what the Compose Specification's schema refuses, a cycle, a missing target.",
  messages,
  run(ctx) {
    const out: Report<typeof messages>[] = [];
    for (const p of problemsOf(composesInUnit(ctx).map(asDeployFile), "parse")) {
      out.push({
        message: "parse",
        data: { problem: p.message, compose: p.playbook },
        file: p.file,
        line: p.line,
        service: p.service ?? null,
        key: p.message,
      });
    }
    return out;
  },
});
