// fleet/service-left: a seat's env file renamed out of the services glob (scripts/coder.env →
// scripts/old/coder.env) is no longer read, and from that change on no rule checks the seat. A deleted
// file is a retired seat. A change to kvgate.yaml that narrows the services glob drops seats the same
// way: both sides are checked under the after's policy, so the engine also reads the before under its
// own kvgate.yaml (ctx.beforeOwn) and a seat there that the new glob no longer matches is reported.
import picomatch from "picomatch";
import { defineCheck, type CheckContext, type Report } from "./define.js";
import type { FleetState } from "../model/types.js";

const messages = {
  renamed: (d: { service: string; from: string; to: string; glob: string }) =>
    `${d.service}: ${d.from} moved to ${d.to}, outside the services glob ` +
    `"${d.glob}", so kvgate no longer checks it; move it back under the glob, ` +
    `widen services: in kvgate.yaml, or delete the file if the seat is retired`,
  narrowed: (d: { service: string; file: string; from: string; glob: string }) =>
    `${d.service}: kvgate.yaml's services glob changed from "${d.from}" to "${d.glob}", ` +
    `which no longer matches ${d.file}, so kvgate no longer checks it; set ` +
    `services: back to a glob that matches it, or delete the file if the seat is retired`,
};

export const fleetServiceLeft = defineCheck({
  id: "fleet/service-left",
  severity: "warning",
  description:
    "A change renames a service's env file out of the services glob, or narrows the " +
    "glob so it no longer matches one: the seat would silently stop being checked.",
  messages,
  run(ctx) {
    // About env files and the glob that reads them: the written sides.
    const { before } = ctx.written;
    if (!before) return [];
    return [...renamed(ctx, before), ...narrowed(ctx)];
  },
});

/** Seats the before's own glob read that still exist but the new glob does not match. */
function narrowed(ctx: CheckContext): Report<typeof messages>[] {
  const own = ctx.beforeOwn;
  if (!own) return [];
  const now = new Set(ctx.written.after.services.map((s) => s.file));
  const glob = ctx.policy.services;
  const matches = picomatch(glob, { dot: true });
  return own.fleet.services.flatMap((s): Report<typeof messages>[] => {
    if (now.has(s.file) || matches(s.file)) return [];
    // A file deleted or renamed in the change is the rename case's (or a retired seat).
    if (ctx.unit.files.some((f) => (f.path === s.file || f.oldPath === s.file) && (f.status === "deleted" || f.status === "renamed")))
      return [];
    return [
      {
        message: "narrowed" as const,
        service: s.name,
        file: s.file,
        line: 1,
        key: `narrowed:${s.file}`,
        data: { service: s.name, file: s.file, from: own.services, glob },
      },
    ];
  });
}

function renamed(ctx: CheckContext, before: FleetState): Report<typeof messages>[] {
  const now = new Set(ctx.written.after.services.map((s) => s.file));
  const glob = ctx.policy.services;
  const matches = picomatch(glob, { dot: true });
  return before.services.flatMap((s): Report<typeof messages>[] => {
    if (now.has(s.file)) return [];
    // A rename git detected, or (rename detection off) the same text added under another path.
    const gone = ctx.unit.files.find((f) => f.path === s.file && f.status === "deleted");
    const moved =
      ctx.unit.files.find((f) => f.oldPath === s.file && f.status === "renamed" && !matches(f.path)) ??
      ctx.unit.files.find((f) => gone?.before != null && f.status === "added" && f.after === gone.before && !matches(f.path));
    if (moved)
      return [
        {
          message: "renamed" as const,
          service: s.name,
          file: moved.path,
          line: 1,
          data: { service: s.name, from: s.file, to: moved.path, glob },
        },
      ];
    return [];
  });
}
