// What the hook's fast path already asked git, handed to the full path when the fast path declines.
// bin/kvgate.js runs both in one process: dist/fast.cjs first, then dist/cli.cjs. Two bundles share no
// module state, so the hand-off goes through one global slot under a registered symbol. Without it
// the full path asked git again for the same diff and config entries: more processes, each reading
// the whole index (the cost that grows with the repository).
import type { DiffRecord } from "./diffstream.js";

export interface StagedHandoff {
  /** The toplevel both runs are at (the fast path runs only there). */
  root: string;
  /** `git diff --cached` of the whole index, as readDiff returned it. */
  diff: DiffRecord;
  /** `git ls-files -s -z --full-name` of the config names: what the index holds at each (maybe still running). */
  config: Promise<Map<string, { mode: string; oid: string } | null>>;
}

const SLOT = Symbol.for("kvgate.staged-handoff");
type Slotted = typeof globalThis & { [SLOT]?: StagedHandoff };

export function handOffStaged(h: StagedHandoff): void {
  (globalThis as Slotted)[SLOT] = h;
}

/** The fast path's answers for a staged run at `root`, once (the slot is emptied); null when none. */
export function takeStagedHandoff(root: string): StagedHandoff | null {
  const g = globalThis as Slotted;
  const h = g[SLOT];
  delete g[SLOT];
  return h && h.root === root ? h : null;
}

/** `ls-files -s -z --full-name` records of the given names: each name's entry, null where absent. */
export function configEntries(out: string, names: readonly string[]): Map<string, { mode: string; oid: string } | null> {
  const found = new Map<string, { mode: string; oid: string } | null>(names.map((n) => [n, null]));
  for (const rec of out.split("\0")) {
    const tab = rec.indexOf("\t");
    if (tab < 0) continue;
    const [mode = "", oid = "", stage = ""] = rec.slice(0, tab).split(" ");
    const path = rec.slice(tab + 1);
    if (stage === "0" && found.has(path)) found.set(path, { mode, oid });
  }
  return found;
}
