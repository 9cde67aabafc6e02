// GPU names the repository already writes (docs/coverage.md#inventory), for the starter inventory when
// `init --from-host` is not given: a key about the card (`gpu_model`, `GPU_NAME`, `card_type`,
// `accelerator`) in Ansible host_vars/group_vars, a compose file or an env file, whose value
// rules/cards.yaml knows. The table gives what CUDA reports as its total, so the seats are sized
// against a figure the table vouches for, never a guess; a name the table lacks is only reported.
import { knownCard } from "../rules/cards.js";
import { FileDoor } from "../git/door.js";
import { listedFiles, readListed } from "./repo-files.js";
import type { HostCard } from "./inventory.js";
import { hostsOf, type FoundService, type Inventory } from "./starter.js";

interface NamedCard {
  /** The host the file is about (host_vars/<host>), or null: the seats' host. */
  host: string | null;
  /** The table's name, and what CUDA reports as its total (MiB). */
  name: string;
  cudaTotalMib: number;
  /** `host_vars/gpu-box.yml:3` */
  where: string;
}

export interface CardNames {
  found: NamedCard[];
  /** A card key whose value the table does not know (`gpu_model: NVIDIA Foo`), with where. */
  unknown: { value: string; where: string }[];
  /** A listed file the door would not read (a symlink out of the repository, a device, over the cap): why. */
  unread: string[];
}

const PATHSPECS = [
  ":(glob)**/host_vars/**",
  ":(glob)**/group_vars/**",
  ":(glob)**/*.env",
  // git's glob pathspecs have no braces.
  ":(glob)**/compose*.yml",
  ":(glob)**/compose*.yaml",
  ":(glob)**/docker-compose*.yml",
  ":(glob)**/docker-compose*.yaml",
];
/** A key that names the card: gpu_model, GPU_NAME, gpu-type, card_model, accelerator, gpu_product… */
const CARD_KEY = /^(?:[A-Za-z0-9]+[_-])*(?:gpu|card|accelerator)(?:[_-](?:model|name|type|product|sku|kind))?$/i;
/** `key: value` (YAML) or `KEY=value` (env), with an optional `- `, `export ` and quotes. */
const LINE = /^\s*(?:-\s+)?(?:export\s+)?([A-Za-z0-9_.-]+)\s*(?::\s+|=)\s*["']?([^"'#\n]*?)["']?\s*(?:#.*)?$/;
const CAP = { bytes: 256 * 1024, kind: "files that name a card" };

function hostOf(path: string): string | null {
  const m = /(?:^|\/)host_vars\/([^/]+?)(?:\.ya?ml|\/.*)?$/.exec(path);
  return m ? (m[1] as string) : null;
}

/** Every card name written under a card key in those files, in path and line order. */
export function cardNamesIn(root: string): CardNames {
  const out: CardNames = { found: [], unknown: [], unread: [] };
  const door = new FileDoor(root);
  for (const path of listedFiles(root, PATHSPECS)) {
    const got = readListed(door, path, CAP);
    if (got === null) continue;
    if ("why" in got) {
      out.unread.push(`${path}: not read: ${got.why}`);
      continue;
    }
    got.text.split(/\r?\n/).forEach((line, i) => {
      const m = LINE.exec(line);
      if (!m || !CARD_KEY.test(m[1] as string)) return;
      const value = (m[2] as string).trim();
      if (!/[A-Za-z]/.test(value) || value.includes("{{") || value.includes("${")) return;
      const where = `${path}:${i + 1}`;
      const card = knownCard(value);
      if (card) out.found.push({ host: hostOf(path), name: card.name, cudaTotalMib: card.cudaTotalMib, where });
      // A value with a figure in it reads as a card's name (`NVIDIA Foo 40GB`); `nvidia`, `cuda` do not.
      else if (/\d/.test(value)) out.unknown.push({ value, where });
    });
  }
  return out;
}

/**
 * The inventory the names give: per host, one card named (several names for one host are not
 * guessed between), at the indexes its seats use (card 0 when they name none). A name in group_vars
 * or a compose/env file is for the seats' host (`fallbackHost`).
 */
export function inventoriesFrom(
  names: CardNames,
  services: readonly FoundService[],
  fallbackHost: string,
): {
  inventories: Inventory[];
  notes: string[];
} {
  const byHost = new Map<string, NamedCard[]>();
  for (const c of names.found) {
    const host = c.host ?? fallbackHost;
    byHost.set(host, [...(byHost.get(host) ?? []), c]);
  }
  const seatCards = hostsOf(services);
  const anyCards = [...new Set(services.flatMap((s) => s.gpus))].sort((a, b) => a - b);
  const inventories: Inventory[] = [];
  const notes: string[] = [];
  for (const [host, named] of [...byHost].sort(([a], [b]) => a.localeCompare(b))) {
    const kinds = [...new Set(named.map((c) => c.name))];
    if (kinds.length > 1) {
      notes.push(`${host}: the repository names ${kinds.join(" and ")} (${named.map((c) => c.where).join(", ")}); not guessed between`);
      continue;
    }
    const card = named[0] as NamedCard;
    const indexes = seatCards.get(host) ?? (anyCards.length > 0 ? anyCards : [0]);
    const cards: HostCard[] = indexes.map((index) => ({ index, name: card.name, totalMib: card.cudaTotalMib }));
    inventories.push({ host, cards, source: `${card.name} named in ${card.where}, its total from rules/cards.yaml` });
  }
  notes.push(...names.unread);
  for (const u of names.unknown) notes.push(`${u.where}: ${u.value} is not a card rules/cards.yaml knows; give its total by hand`);
  return { inventories, notes };
}
