// systemd/parse: a systemd unit the change touches that kvgate cannot read the way systemd does (a
// line outside any [Section], a line that is not Key=Value, an ExecStart that does not split into
// words, a file that is not text): what it deploys is not read, so this is an error.
import { defineCheck, type Report } from "./define.js";
import { unitsInUnit } from "../model/units.js";
import { problemsOf } from "../playbook/problems.js";

const messages = {
  parse: (d: { problem: string }) => `${d.problem}; kvgate cannot size what the unit runs until it reads`,
};

export const systemdParse = defineCheck({
  id: "systemd/parse",
  severity: "error",
  description:
    "A systemd unit (or an env file it loads) cannot be read: a line outside a [Section] or not Key=Value, an ExecStart that does not split into words.",
  messages,
  run(ctx) {
    return problemsOf(unitsInUnit(ctx), "parse").map((p): Report<typeof messages> => ({
      message: "parse",
      data: { problem: p.message, unit: p.playbook },
      file: p.file,
      line: p.line,
      service: p.service ?? null,
      key: p.message,
    }));
  },
});
