// Which compose files a deploy unit is about: those it changes (the compose file itself, or any file
// it reads: its override file, the `.env` beside it, an env_file, an extends or include target), and
// every one under --all. A changed compose file is one deploy of every service it sets.
import type { ComposeRead } from "./types.js";
import type { UnitView } from "./playbooks.js";

export function composesInUnit(ctx: UnitView): ComposeRead[] {
  const all = ctx.after.composes ?? [];
  if (ctx.unit.kind === "all" || ctx.unit.policyChange) return all;
  // A binary file has no text (`after` null) but is there: a compose file turned binary is read (and refused).
  const changed = new Set(ctx.unit.files.filter((f) => f.after !== null || (f.binary && f.status !== "deleted")).map((f) => f.path));
  return all.filter((r) => changed.has(r.path) || r.files.some((f) => changed.has(f)));
}
