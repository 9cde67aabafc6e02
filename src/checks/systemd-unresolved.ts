// systemd/unresolved: a unit value systemd fills in on the host (a specifier like %i, a $VAR, an
// EnvironmentFile= that is not in the repository, `docker run -e KEY` from the host's environment):
// kvgate reads what the file writes, so that value is skipped. A sizing setting skipped this way
// leaves the seat unsized (fleet/unsized refuses it); anything else is this notice.
import { defineCheck, type Report } from "./define.js";
import { unitsInUnit } from "../model/units.js";
import { problemsOf } from "../playbook/problems.js";

const messages = {
  unresolved: (d: { problem: string }) => d.problem,
};

export const systemdUnresolved = defineCheck({
  id: "systemd/unresolved",
  severity: "notice",
  description:
    "A systemd unit value that systemd fills in on the host (%i, $VAR, an EnvironmentFile outside the repository); that value is skipped.",
  messages,
  run(ctx) {
    return problemsOf(unitsInUnit(ctx), "unresolved").map((p): Report<typeof messages> => ({
      message: "unresolved",
      data: { problem: p.message, unit: p.playbook, ...(p.key ? { key: p.key } : {}) },
      file: p.file,
      line: p.line,
      service: p.service ?? null,
      key: p.message,
    }));
  },
});
