// fleet/service-left: a seat's env file renamed out of the services glob (scripts/coder.env →
// scripts/old/coder.env), or left out by a changed glob, is no longer read, and from that change on
// no rule checks the seat. A deleted file is a retired seat; a file that still exists is reported.
import picomatch from "picomatch";
import { defineCheck, type Report } from "./define.js";

const messages = {
  renamed: (d: { service: string; from: string; to: string; glob: string }) =>
    `${d.service}: ${d.from} moved to ${d.to}, outside the services glob "${d.glob}", so kvgate no longer checks it; move it back under the glob, widen services: in kvgate.yaml, or delete the file if the seat is retired`,
  unmatched: (d: { service: string; from: string; glob: string }) =>
    `${d.service}: ${d.from} no longer matches the services glob "${d.glob}", so kvgate no longer checks it; widen services: in kvgate.yaml to match it, or delete the file if the seat is retired`,
};

export const fleetServiceLeft = defineCheck({
  id: "fleet/service-left",
  severity: "warning",
  description: "A change moves a service's env file out of the services glob (a rename, or a narrower glob) while the file still exists: the seat silently stops being checked.",
  messages,
  run(ctx) {
    if (!ctx.before) return [];
    const now = new Set(ctx.after.services.map((s) => s.file));
    const paths = new Set(ctx.after.paths);
    const glob = ctx.policy.services;
    const matches = picomatch(glob, { dot: true });
    return ctx.before.services.flatMap((s): Report<typeof messages>[] => {
      if (now.has(s.file)) return [];
      const moved = ctx.unit.files.find((f) => f.oldPath === s.file && (f.status === "renamed" || f.status === "copied") && !matches(f.path));
      if (moved && moved.status === "renamed") return [{ message: "renamed" as const, service: s.name, file: moved.path, line: 1, data: { service: s.name, from: s.file, to: moved.path, glob } }];
      if (paths.has(s.file)) return [{ message: "unmatched" as const, service: s.name, file: s.file, line: 1, data: { service: s.name, from: s.file, glob } }];
      return [];
    });
  },
});
