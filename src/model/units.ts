// Which systemd units a deploy unit is about: those it changes (the unit file, or an env file it
// loads), and every one under --all.
import type { SystemdRead } from "../systemd/read.js";
import type { UnitView } from "./playbooks.js";

export function unitsInUnit(ctx: UnitView): SystemdRead[] {
  const all = ctx.after.units ?? [];
  if (ctx.unit.kind === "all" || ctx.unit.policyChange) return all;
  const changed = new Set(ctx.unit.files.filter((f) => f.after !== null || (f.binary && f.status !== "deleted")).map((f) => f.path));
  return all.filter((r) => r.files.some((f) => changed.has(f)));
}
