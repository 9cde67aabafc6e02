// Which playbooks a deploy unit is about: those it changes (the playbook itself, or any file it
// reads: an included tasks file, a vars file, a template), and every one under --all.
import type { ChangedFile, UnitKind } from "../git/types.js";
import type { FleetState, PlaybookRead } from "./types.js";

export interface UnitView {
  unit: { kind: UnitKind; files: readonly ChangedFile[]; policyChange?: boolean };
  after: FleetState;
}

export function playbooksInUnit(ctx: UnitView): PlaybookRead[] {
  const all = ctx.after.playbooks ?? [];
  if (ctx.unit.kind === "all" || ctx.unit.policyChange) return all;
  const changed = new Set(ctx.unit.files.filter((f) => f.after !== null).map((f) => f.path));
  return all.filter((p) => p.files.some((f) => changed.has(f)) || changed.has(p.path));
}
