// Where Ansible finds what a playbook uses, in a repository laid out the way operators do
// (docs/playbooks.md#layout): the nearest ansible.cfg above the playbook (its `inventory` and
// `roles_path`), else an inventory beside the playbook or in a folder above it (`hosts`, `inventory`,
// `hosts.yml`, `inventory/`, `inventories/<env>/`), group_vars/ and host_vars/ next to the inventory
// and next to the playbook, and roles under `roles/` or the roles_path.
import { posix } from "node:path";
import type { ReadFile } from "./records.js";

export interface AnsibleLayout {
  /** The ansible.cfg that applies, if the repository has one above the playbook. */
  cfg: string | null;
  /** The inventory files. */
  inventories: string[];
  /** Folders roles are looked up in, first match wins. */
  rolesPath: string[];
  /** Folders whose group_vars/ and host_vars/ apply: the inventories' folders, then the playbook's (which wins). */
  varsDirs: string[];
}

const INVENTORY_NAMES = ["hosts", "hosts.ini", "hosts.yml", "hosts.yaml", "inventory", "inventory.ini", "inventory.yml", "inventory.yaml"];
const INVENTORY_DIRS = ["inventory", "inventories"];
/** Files in an inventory folder that are not inventories (Ansible's inventory_ignore_extensions, and vars). */
const NOT_INVENTORY = /(^|\/)(group_vars|host_vars)\/|(^|\/)\.|\.(md|txt|rst|orig|bak|ini~|retry|pyc|pyo|py|sh|cfg|j2|example|sample)$|~$/;

/** The folders from the playbook's up to the repository root ("" is the root). */
function ancestors(path: string): string[] {
  const out: string[] = [];
  let d = posix.dirname(path);
  for (;;) {
    out.push(d === "." ? "" : d);
    if (d === "." || d === "" || d === "/") break;
    d = posix.dirname(d);
  }
  return out;
}

const join = (dir: string, rel: string): string => posix.normalize(dir === "" ? rel : `${dir}/${rel}`);

/** The files under a folder (from the listing), sorted. */
export function filesUnder(listing: readonly string[] | null, dir: string): string[] {
  if (listing === null) return [];
  const prefix = dir === "" ? "" : `${dir}/`;
  return listing.filter((p) => p.startsWith(prefix)).sort();
}

/** `[defaults]` of an ansible.cfg: `key = value` lines (`;`/`#` comments). */
function cfgDefaults(text: string): Map<string, string> {
  const out = new Map<string, string>();
  let section = "";
  for (const raw of text.split(/\r?\n/)) {
    const t = raw.trim();
    if (t === "" || t.startsWith("#") || t.startsWith(";")) continue;
    const h = /^\[([^\]]+)\]$/.exec(t);
    if (h) section = (h[1] as string).trim();
    else if (section === "defaults") {
      const m = /^([A-Za-z_]+)\s*[=:]\s*(.*)$/.exec(t);
      if (m) out.set((m[1] as string).toLowerCase(), (m[2] as string).replace(/\s+[#;].*$/, "").trim());
    }
  }
  return out;
}

/** Relative repository paths of a config value's entries (`a,b` or `a:b`); `~`, absolute and variable paths are not the repository's. */
function repoPaths(base: string, value: string, sep: RegExp): string[] {
  return value
    .split(sep)
    .map((s) => s.trim())
    .filter((s) => s !== "" && !s.startsWith("/") && !s.startsWith("~") && !s.includes("$"))
    .map((s) => join(base, s))
    .filter((p) => !p.startsWith(".."));
}

export function layoutOf(playbook: string, listing: readonly string[] | null, read: ReadFile): AnsibleLayout {
  const up = ancestors(playbook);
  const playbookDir = up[0] ?? "";
  const cfg = up.map((d) => join(d, "ansible.cfg")).find((p) => read(p) !== null) ?? null;
  const conf = cfg ? cfgDefaults(read(cfg) ?? "") : new Map<string, string>();
  const cfgDir = cfg ? (posix.dirname(cfg) === "." ? "" : posix.dirname(cfg)) : "";
  const isInventory = (p: string): boolean => !NOT_INVENTORY.test(p) && read(p) !== null;
  let inventories: string[] = [];
  const configured = conf.get("inventory") ?? conf.get("hostfile");
  if (configured !== undefined) {
    for (const p of repoPaths(cfgDir, configured, /,/)) {
      if (read(p) !== null) inventories.push(p);
      else inventories.push(...filesUnder(listing, p).filter(isInventory));
    }
  } else {
    for (const d of up) {
      const here = [
        ...INVENTORY_NAMES.map((n) => join(d, n)).filter((p) => read(p) !== null),
        ...INVENTORY_DIRS.flatMap((n) => filesUnder(listing, join(d, n)).filter(isInventory)),
      ];
      if (here.length > 0) {
        inventories = here;
        break;
      }
    }
  }
  inventories = [...new Set(inventories)];
  const rolesPath = [
    join(playbookDir, "roles"),
    ...repoPaths(cfgDir, conf.get("roles_path") ?? "", /[:,]/),
    join(playbookDir, "../roles"),
    playbookDir,
  ];
  const invDirs = inventories.map((p) => (posix.dirname(p) === "." ? "" : posix.dirname(p)));
  const varsDirs = [...new Set([...invDirs, playbookDir])];
  return { cfg, inventories, rolesPath: [...new Set(rolesPath)].filter((p) => !p.startsWith("..")), varsDirs };
}

/**
 * The files of `<dir>/group_vars/<name>` (or host_vars): `<name>`, `<name>.yml`, `.yaml`, `.json`, or
 * every file of the folder `<name>/`, in name order (Ansible merges them).
 */
export function varsFilesOf(
  listing: readonly string[] | null,
  read: ReadFile,
  dir: string,
  kind: "group_vars" | "host_vars",
  name: string,
): string[] {
  const base = join(dir, `${kind}/${name}`);
  const single = ["", ".yml", ".yaml", ".json"].map((x) => `${base}${x}`).filter((p) => read(p) !== null);
  const inFolder = listing === null ? [`${base}/main.yml`, `${base}/main.yaml`].filter((p) => read(p) !== null) : filesUnder(listing, base);
  return [...single, ...inFolder.filter((p) => /\.(ya?ml|json)$|\/[^./]+$/.test(p))];
}
