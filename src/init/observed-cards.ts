// Card totals from an observed file (`kvgate observe --write`, docs/usage-observe.md#observed-file),
// for the starter inventory when `init --from-host` is not given: each card's `total_bytes` is what the
// host's own metrics reported, so it ranks after nvidia-smi and before a card name looked up in
// rules/cards.yaml (docs/coverage.md#inventory). A file that does not read is a note, never a guess.
import { FileDoor } from "../git/door.js";
import { READ_CAPS } from "../load/caps.js";
import { readObservedFile } from "../parse/observed.js";
import type { Inventory } from "./starter.js";
import { listedFiles, readListed } from "./repo-files.js";

// git's glob pathspecs have no braces.
const PATHSPECS = [":(glob)**/observed*.yaml", ":(glob)**/observed*.yml", ":(glob)**/*.observed.yaml"];
const CAP = { bytes: READ_CAPS["observed plateaus"] as number, kind: "observed plateaus" };
const MIB = 1024 * 1024;

/** Per host, the cards an observed file lists with their totals; the first file to name a host wins. */
export function observedInventories(root: string): { inventories: Inventory[]; notes: string[] } {
  const byHost = new Map<string, Inventory>();
  const notes: string[] = [];
  const door = new FileDoor(root);
  for (const path of listedFiles(root, PATHSPECS)) {
    const got = readListed(door, path, CAP);
    if (got === null) continue;
    if ("why" in got) {
      notes.push(`${path}: not read: ${got.why}`);
      continue;
    }
    const r = readObservedFile(got.text, path);
    if (!r.ok) {
      const p = r.problems[0];
      notes.push(`${path}${p?.line ? `:${p.line}` : ""}: not an observed file kvgate can read (${p?.message ?? "invalid"}); not used`);
      continue;
    }
    const source = `${path} (observed ${r.value.from} – ${r.value.until})`;
    const mine = new Map<string, Inventory>();
    r.value.cards.forEach((c, i) => {
      if (c.total_bytes === undefined) {
        notes.push(`${path}:${r.cardLines[i] ?? 1}: ${c.host} GPU ${c.index} has no total_bytes; not used`);
        return;
      }
      if (byHost.has(c.host)) return;
      const inv = mine.get(c.host) ?? { host: c.host, cards: [], source };
      mine.set(c.host, {
        ...inv,
        cards: [...inv.cards, { index: c.index, name: "as observed", totalMib: Math.floor(c.total_bytes / MIB) }],
      });
    });
    for (const [host, inv] of mine) byHost.set(host, { ...inv, cards: [...inv.cards].sort((a, b) => a.index - b.index) });
  }
  return { inventories: [...byHost.values()].sort((a, b) => a.host.localeCompare(b.host)), notes };
}
