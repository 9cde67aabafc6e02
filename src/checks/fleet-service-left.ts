// fleet/service-left: a seat's env file renamed out of the services glob (scripts/coder.env →
// scripts/old/coder.env) is no longer read, and from that change on no rule checks the seat. A deleted
// file is a retired seat. (Both sides of a change are read with one policy, so a narrower glob shows
// as fewer services on both sides; the rename is what a change can show.)
import picomatch from "picomatch";
import { defineCheck, type Report } from "./define.js";

const messages = {
  renamed: (d: { service: string; from: string; to: string; glob: string }) =>
    `${d.service}: ${d.from} moved to ${d.to}, outside the services glob "${d.glob}", so kvgate no longer checks it; move it back under the glob, widen services: in kvgate.yaml, or delete the file if the seat is retired`,
};

export const fleetServiceLeft = defineCheck({
  id: "fleet/service-left",
  severity: "warning",
  description: "A change renames a service's env file to a path outside the services glob: the seat would silently stop being checked.",
  messages,
  run(ctx) {
    if (!ctx.before) return [];
    const now = new Set(ctx.after.services.map((s) => s.file));
    const glob = ctx.policy.services;
    const matches = picomatch(glob, { dot: true });
    return ctx.before.services.flatMap((s): Report<typeof messages>[] => {
      if (now.has(s.file)) return [];
      // A rename git detected, or (rename detection off) the same text added under another path.
      const gone = ctx.unit.files.find((f) => f.path === s.file && f.status === "deleted");
      const moved =
        ctx.unit.files.find((f) => f.oldPath === s.file && f.status === "renamed" && !matches(f.path)) ??
        ctx.unit.files.find((f) => gone?.before != null && f.status === "added" && f.after === gone.before && !matches(f.path));
      if (moved) return [{ message: "renamed" as const, service: s.name, file: moved.path, line: 1, data: { service: s.name, from: s.file, to: moved.path, glob } }];
      return [];
    });
  },
});
