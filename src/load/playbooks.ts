// The Ansible playbooks of the repository, with every file they may use: read into FleetState.playbooks
// (the engine turns each changed one into a deploy of the services it sets). The playbooks are the files
// the `playbooks` glob matches; when it matches none, they are discovered the way operators lay Ansible
// out (docs/playbooks.md#discovery): a YAML list of plays (`hosts:`) named site.yml or playbook*.yml, under
// an ansible/ or playbooks/ folder, or beside a roles/ folder, an ansible.cfg or an inventory.
// Around them: roles, group_vars, host_vars, inventories, ansible.cfg and the roles_path it names.
import { posix } from "node:path";
import picomatch from "picomatch";
import type { FleetState, PlaybookRead } from "../model/types.js";
import { readPlaybook } from "../playbook/plays.js";
import { readUnit } from "../systemd/read.js";
import { parseEnv } from "../parse/env.js";
import type { DecodedFile } from "./decode.js";
import type { FleetInput, LoadContext } from "./input.js";

/** Folders Ansible reads vars, roles, templates and inventories from, wherever they sit in the repo. */
const ANSIBLE_DIRS = /(^|\/)(vars|group_vars|host_vars|roles|templates|files|inventory|inventories)\//;
/** Their text files: YAML, templates, env files and units, INI inventories, and files without an extension (host_vars/gpu1). */
const ANSIBLE_TEXT = /\.(ya?ml|json|j2|env|service|ini|cfg|conf)$|(^|\/)[^./]+$/;
const INVENTORY_FILE = /(^|\/)(hosts|inventory)(\.(ini|ya?ml))?$/;
const VENDORED = /(^|\/)(node_modules|vendor|\.git|\.github)\//;

/** What Ansible may read besides the plays: listed whenever the repository is listed for playbooks. */
const ANSIBLE_SIDE_GLOBS = [
  "**/ansible.cfg",
  "**/{roles,group_vars,host_vars,vars,inventory,inventories,templates}/**",
  "**/{hosts,inventory}",
  "**/{hosts,inventory}.{ini,yml,yaml}",
];
/** Where a play may be when the `playbooks` glob matches nothing: YAML anywhere (the candidates are picked by place). */
const DISCOVERY_GLOBS = ["**/*.yml", "**/*.yaml"];
/** Play files by name or folder, wherever they are. */
const PLAY_PLACES = ["**/site.{yml,yaml}", "**/playbook*.{yml,yaml}", "**/{ansible,playbooks,plays}/**/*.{yml,yaml}"];
const isPlayPlace = picomatch(PLAY_PLACES, { dot: true });

/** Compiled once per glob: the fleet loader asks for every snapshot of a run. */
const matchers = new Map<string, { base: string; isPlaybook: (p: string) => boolean }>();

function matcherOf(glob: string): { base: string; isPlaybook: (p: string) => boolean } {
  let m = matchers.get(glob);
  if (!m) {
    const match = picomatch(glob, { dot: true });
    matchers.set(glob, (m = { base: picomatch.scan(glob).base, isPlaybook: (p) => match(p) }));
  }
  return m;
}

const dirOf = (p: string): string => (posix.dirname(p) === "." ? "" : posix.dirname(p));

/** Folders that hold a roles/ folder, an ansible.cfg or an inventory: a YAML file there may be a play. */
function ansibleFolders(listing: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const p of listing) {
    const roles = /^(.*?)(?:^|\/)roles\/[^/]+\//.exec(p);
    if (roles) out.add((roles[1] as string).replace(/\/$/, ""));
    if (p.endsWith("ansible.cfg") || INVENTORY_FILE.test(p)) out.add(dirOf(p));
  }
  return out;
}

/** The playbook candidates: the glob's matches, or (when it matches none) YAML files where operators put plays. */
function playbooksOf(listing: readonly string[], glob: string): { paths: string[]; discovered: boolean } {
  const { isPlaybook } = matcherOf(glob);
  const own = listing.filter((p) => isPlaybook(p));
  if (own.length > 0) return { paths: own, discovered: false };
  const folders = ansibleFolders(listing);
  const paths = listing.filter(
    (p) =>
      /\.ya?ml$/.test(p) &&
      !VENDORED.test(p) &&
      !ANSIBLE_DIRS.test(p) &&
      !/(^|\/)(tasks|handlers|defaults|meta)\//.test(p) &&
      (isPlayPlace(p) || folders.has(dirOf(p))),
  );
  return { paths, discovered: true };
}

/** The paths a snapshot must read for the playbooks: the playbooks, every file under the glob's base
 *  folder, and the text files of Ansible's folders (roles, vars, inventories) and ansible.cfg anywhere. */
export function playbookPaths(paths: readonly string[], playbooksGlob: string): string[] {
  const { base } = matcherOf(playbooksGlob);
  const own = new Set(playbooksOf(paths, playbooksGlob).paths);
  return paths.filter(
    (p) =>
      own.has(p) ||
      (base !== "" && p.startsWith(base + "/")) ||
      (!VENDORED.test(p) && ((ANSIBLE_DIRS.test(p) && ANSIBLE_TEXT.test(p)) || p.endsWith("ansible.cfg") || INVENTORY_FILE.test(p))),
  );
}

/**
 * What the playbooks need listed beyond the policy's globs: Ansible's folders anywhere, and YAML anywhere
 * for discovery (used only when the `playbooks` glob matches nothing). src/load/fleet.ts adds them to its
 * first listing: the default compose and systemd globs walk the whole index already, so this costs no
 * second `git ls-files`; they are not change globs (a YAML edit elsewhere keeps the fast path).
 */
export const PLAYBOOK_LISTING_GLOBS: readonly string[] = [...ANSIBLE_SIDE_GLOBS, ...DISCOVERY_GLOBS];

/**
 * Every path whose change can change what the playbooks deploy, beyond the files read (FleetState.readPaths):
 * Ansible's folders (a new host_vars file), and the places a new play would be found (discovery), so
 * the hook's fast path never skips them.
 */
export function playbookChangeGlobs(fleet: Pick<FleetState, "paths" | "playbooks">, playbooksGlob: string): string[] {
  const { isPlaybook } = matcherOf(playbooksGlob);
  if (fleet.paths.some((p) => isPlaybook(p))) return ANSIBLE_SIDE_GLOBS;
  const beside = [...ansibleFolders(fleet.paths), ...(fleet.playbooks ?? []).map((p) => dirOf(p.path))].map((d) =>
    d === "" ? "*.{yml,yaml}" : `${d}/*.{yml,yaml}`,
  );
  return [...new Set([...ANSIBLE_SIDE_GLOBS, ...PLAY_PLACES, ...beside])];
}

/** The roles_path and inventory folders an ansible.cfg names (beyond Ansible's usual folders). */
function cfgFolders(files: ReadonlyMap<string, DecodedFile>): string[] {
  const out: string[] = [];
  for (const [p, d] of files) {
    if (!p.endsWith("ansible.cfg") || d.text === null) continue;
    for (const m of d.text.matchAll(/^\s*(roles_path|inventory)\s*[=:]\s*(.+)$/gm))
      for (const part of (m[2] as string).replace(/\s+[#;].*$/, "").split(m[1] === "inventory" ? /,/ : /[:,]/)) {
        const rel = part.trim();
        if (rel === "" || rel.startsWith("/") || rel.startsWith("~") || rel.includes("$")) continue;
        const dir = posix.normalize(posix.join(dirOf(p), rel)).replace(/\/$/, "");
        if (!dir.startsWith("..")) out.push(dir === "." ? "" : dir);
      }
  }
  return out;
}

/** Reads every playbook of the files loaded; services (name → env file) come from the fleet. */
function readPlaybooks(files: ReadonlyMap<string, DecodedFile>, ctx: LoadContext, fleet: FleetState): PlaybookRead[] {
  const { listing, policy, pack } = ctx;
  const read = (p: string): string | null => files.get(p)?.text ?? null;
  const services = new Map(fleet.services.map((s) => [s.name, s.file]));
  const envOf = (p: string): { key: string; value: string; line: number }[] | null => {
    const text = read(p);
    return text === null ? null : [...parseEnv(text, p).entries.values()].map((e) => ({ key: e.key, value: e.value, line: e.line }));
  };
  const opts = {
    services,
    engines: Object.keys(pack.engines.engines),
    paths: listing,
    hosts: Object.keys(policy.fleet.hosts),
    readUnit: (name: string, text: string) => readUnit(name, text, { paths: listing, services, envOf }),
    unreadable: (p: string) => files.get(p)?.problem ?? null,
  };
  const out: PlaybookRead[] = [];
  for (const path of playbooksOf(listing, policy.playbooks).paths) {
    const d = files.get(path);
    if (!d) continue;
    if (d.problem) {
      out.push({
        path,
        kind: "playbook",
        isPlaybook: false,
        deploys: [],
        problems: [{ kind: "parse", file: path, line: 1, message: `${path}: ${d.problem}` }],
        files: [path],
      });
    } else if (d.text !== null) out.push(readPlaybook(path, read, opts));
  }
  // Discovered: only play lists are playbooks (a compose file beside an inventory is not); a candidate
  // that is not valid YAML may be one, so its parse problem stays.
  if (!playbooksOf(listing, policy.playbooks).discovered) return out;
  return out.filter((p) => p.isPlaybook || p.problems.length > 0);
}

export const playbooks: FleetInput = {
  kind: "playbooks",
  paths: ({ listing, policy }) => playbookPaths(listing, policy.playbooks),
  morePaths(files, { listing }) {
    const dirs = cfgFolders(files);
    return dirs.length === 0
      ? []
      : listing.filter((p) => dirs.some((d) => d === "" || p.startsWith(`${d}/`)) && ANSIBLE_TEXT.test(p) && !VENDORED.test(p));
  },
  add(fleet, files, ctx) {
    fleet.playbooks = readPlaybooks(files, ctx, fleet);
  },
};
